//! Shared by the ptxas tests: shell scripts standing in for ptxas and python3.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Writing an executable while another test thread forks can make running it fail
/// with "text file busy"; the tests of one binary take turns.
pub static TURN: Mutex<()> = Mutex::new(());

/// An executable `#!/bin/sh` script at `path` running `body`.
pub fn script(path: &Path, body: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().expect("scripts live in a directory"))
        .expect("cannot create the script's directory");
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("cannot write a script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .expect("cannot make a script executable");
    path.to_owned()
}
