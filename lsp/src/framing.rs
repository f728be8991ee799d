//! Splitting a byte stream into LSP message bodies, whatever the stream holds.
//!
//! A message is header lines (`Name: value`, each ending in `\r\n`; a bare `\n`
//! is accepted), a blank line, and `Content-Length` bytes of body. [`FrameReader`]
//! reads one header line at a time, keeping at most [`MAX_HEADER_LINE`] bytes of
//! it, so a stream with no line breaks costs no memory; it reads a body only once
//! its length is known to be at most [`MAX_MESSAGE_BYTES`]. Anything else becomes a
//! [`Frame::Skipped`] saying what was dropped, and reading goes on at the next
//! header. See [`crate::transport`] for what the frames become.

use std::fmt;
use std::io::{self, BufRead, Read};

use crate::transport::{MAX_HEADER_LINE, MAX_MESSAGE_BYTES};

/// What the stream held next.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message body, at most [`MAX_MESSAGE_BYTES`] long, not yet decoded.
    Body(Vec<u8>),
    /// Input that was dropped, and why, in a sentence for the log.
    Skipped(String),
    /// The input ended.
    End,
}

/// Reads [`Frame`]s from a byte stream.
pub struct FrameReader<R> {
    input: R,
    /// Bytes of junk (text that is no header) not yet reported.
    junk: usize,
}

const CONTENT_LENGTH: &[u8] = b"content-length:";

impl<R: BufRead> FrameReader<R> {
    /// A reader of `input`.
    pub fn new(input: R) -> Self {
        FrameReader { input, junk: 0 }
    }

    /// The next frame. Only a failure of the input itself is an error.
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        // The last `Content-Length` value of the header block, trimmed.
        let mut length: Option<String> = None;
        let mut in_block = false;
        loop {
            let Some(line) = self.line()? else {
                return Ok(Frame::End);
            };
            if line.is_empty() {
                if !in_block {
                    continue;
                }
                return match body_size(length.as_deref()) {
                    Ok(size) => self.body(size),
                    Err(skip) => Ok(Frame::Skipped(skip.to_string())),
                };
            }
            let header = match header_start(&line) {
                Some(0) => &line[..],
                Some(start) => {
                    // A message glued to junk: what came before its header is junk.
                    self.junk += start;
                    length = None;
                    &line[start..]
                }
                None => {
                    self.junk += line.len();
                    continue;
                }
            };
            in_block = true;
            let (name, value) = split_header(header);
            if name.eq_ignore_ascii_case(b"content-length") {
                length = Some(String::from_utf8_lossy(value).trim().to_owned());
            }
        }
    }

    /// Reads `size` bytes of body.
    fn body(&mut self, size: usize) -> io::Result<Frame> {
        let mut body = Vec::with_capacity(size);
        (&mut self.input).take(size as u64).read_to_end(&mut body)?;
        if body.len() < size {
            let skip = Skip::Truncated {
                read: body.len(),
                size,
            };
            return Ok(Frame::Skipped(skip.to_string()));
        }
        Ok(Frame::Body(body))
    }

    /// The next line without its line break (`None` at the end of input), cut to
    /// its last [`MAX_HEADER_LINE`] bytes; what is cut counts as junk.
    fn line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        let mut read_any = false;
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if buffer.is_empty() {
                return Ok(read_any.then_some(line));
            }
            read_any = true;
            let (taken, done) = match buffer.iter().position(|&byte| byte == b'\n') {
                Some(newline) => (newline + 1, true),
                None => (buffer.len(), false),
            };
            line.extend_from_slice(&buffer[..taken]);
            self.input.consume(taken);
            if line.len() > 2 * MAX_HEADER_LINE {
                let cut = line.len() - MAX_HEADER_LINE;
                self.junk += cut;
                line.drain(..cut);
            }
            if done {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(Some(line));
            }
        }
    }

    /// A sentence for the log about the junk skipped since the last call, if any:
    /// one line per run of junk, not one per junk line.
    pub fn take_junk(&mut self) -> Option<String> {
        let junk = std::mem::take(&mut self.junk);
        (junk > 0).then(|| format!("skipped {junk} bytes that were not a message"))
    }
}

/// Where a header starts in `line`: at its last `Content-Length:` if it has one (a
/// message glued to junk before it), else at 0 for a `Name: value` line, else
/// nowhere.
fn header_start(line: &[u8]) -> Option<usize> {
    let content_length = line
        .windows(CONTENT_LENGTH.len())
        .rposition(|window| window.eq_ignore_ascii_case(CONTENT_LENGTH));
    let colon = line.iter().position(|&byte| byte == b':');
    let is_header = colon.is_some_and(|colon| {
        colon > 0
            && line[..colon]
                .iter()
                .all(|&byte| byte.is_ascii_alphanumeric() || byte == b'-')
    });
    content_length.or(is_header.then_some(0))
}

/// A header line's name and value.
fn split_header(line: &[u8]) -> (&[u8], &[u8]) {
    let colon = line
        .iter()
        .position(|&byte| byte == b':')
        .unwrap_or(line.len());
    (&line[..colon], line.get(colon + 1..).unwrap_or_default())
}

/// Why a message's body is skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Skip {
    /// Its header has no `Content-Length`.
    NoLength,
    /// Its `Content-Length` value is not a byte count.
    NotACount(String),
    /// It is longer than [`MAX_MESSAGE_BYTES`].
    OverLimit(u64),
    /// The input ended `read` bytes into a body of `size`.
    Truncated { read: usize, size: usize },
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::NoLength => f.write_str("a header without `Content-Length`; its body is skipped"),
            Skip::NotACount(value) => write!(
                f,
                "`Content-Length: {value}` is not a byte count; its body is skipped"
            ),
            Skip::OverLimit(size) => write!(
                f,
                "a message of {size} bytes is over the limit of {MAX_MESSAGE_BYTES}; it is skipped"
            ),
            Skip::Truncated { read, size } => {
                write!(f, "the input ended {read} bytes into a body of {size}")
            }
        }
    }
}

/// The body size to read for a header block's `Content-Length` value (`None`: it had
/// none), or why none can be.
fn body_size(length: Option<&str>) -> Result<usize, Skip> {
    let length = length.ok_or(Skip::NoLength)?;
    let size = (length.parse::<u64>()).map_err(|_| Skip::NotACount(length.to_owned()))?;
    if size > MAX_MESSAGE_BYTES as u64 {
        return Err(Skip::OverLimit(size));
    }
    usize::try_from(size).map_err(|_| Skip::OverLimit(size))
}

#[cfg(test)]
mod tests {
    use super::{Frame, FrameReader};
    use crate::transport::MAX_HEADER_LINE;

    /// Every frame of `input`, with a `Skipped` for junk where it was reported.
    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut reader = FrameReader::new(input);
        let mut frames = Vec::new();
        loop {
            let frame = reader.next_frame().unwrap_or(Frame::End);
            if let Some(junk) = reader.take_junk() {
                frames.push(Frame::Skipped(junk));
            }
            if frame == Frame::End {
                return frames;
            }
            frames.push(frame);
        }
    }

    fn body(text: &str) -> Frame {
        Frame::Body(text.as_bytes().to_vec())
    }

    fn skipped(why: &str) -> Frame {
        Frame::Skipped(why.to_owned())
    }

    #[test]
    fn framed_messages_are_read_whatever_the_header_case_and_line_breaks() {
        let input = b"Content-Length: 2\r\n\r\n{}content-length:3\nContent-Type: x\n\n[1]";
        assert_eq!(frames(input), [body("{}"), body("[1]")]);
    }

    #[test]
    fn junk_is_skipped_up_to_the_next_header_and_reported_once_per_run() {
        let input = b"garbage\r\n{\"a\": 1}\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(
            frames(input),
            [
                skipped("skipped 15 bytes that were not a message"),
                body("{}")
            ]
        );
        let glued = b"{\"x\": \"Content-Length: 9\"}Content-Length: 2\r\n\r\n{}";
        assert_eq!(
            frames(glued),
            [
                skipped("skipped 26 bytes that were not a message"),
                body("{}")
            ],
            "the last `Content-Length` on a line is the header"
        );
    }

    #[test]
    fn a_missing_bad_or_huge_length_skips_the_body_without_reading_it() {
        let huge = b"Content-Length: 100000000000\r\n\r\n{}\nContent-Length: 2\r\n\r\n[]";
        assert_eq!(
            frames(huge),
            [
                skipped(
                    "a message of 100000000000 bytes is over the limit of 16777216; it is skipped"
                ),
                skipped("skipped 2 bytes that were not a message"),
                body("[]")
            ]
        );
        let bad = b"Content-Length: -1\r\n\r\n";
        assert_eq!(
            frames(bad),
            [skipped(
                "`Content-Length: -1` is not a byte count; its body is skipped"
            )]
        );
        let missing = b"Content-Type: a\r\n\r\n";
        assert_eq!(
            frames(missing),
            [skipped(
                "a header without `Content-Length`; its body is skipped"
            )]
        );
    }

    #[test]
    fn a_truncated_body_and_endless_lines_cost_no_more_than_their_caps() {
        assert_eq!(
            frames(b"Content-Length: 10\r\n\r\n{}"),
            [skipped("the input ended 2 bytes into a body of 10")]
        );
        let mut endless = vec![b'x'; 50 * MAX_HEADER_LINE];
        endless.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let mut reader = FrameReader::new(&endless[..]);
        let line = reader.line().ok().flatten().unwrap_or_default();
        assert!(line.len() <= 2 * MAX_HEADER_LINE && line.ends_with(b"Content-Length: 2"));
        let mut reader = FrameReader::new(&endless[..]);
        assert_eq!(reader.next_frame().ok(), Some(body("{}")));
        assert_eq!(
            reader.take_junk(),
            Some(format!(
                "skipped {} bytes that were not a message",
                50 * MAX_HEADER_LINE
            ))
        );
    }
}
