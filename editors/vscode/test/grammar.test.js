// Tokenises CuK with the real TextMate engine (vscode-textmate on the Oniguruma
// regular expressions VS Code uses) and checks the scopes of chosen tokens in
// test/fixtures/tricky.cuk, then that every example in cuk-examples/ tokenises
// with no text left unscoped by an open comment or string. Run by
// `lsp/tests/editor_package.rs` after `npm ci`; exits non-zero on a failure.
'use strict';

const fs = require('fs');
const path = require('path');
const textmate = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const root = path.join(__dirname, '..');

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer);
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async () => {
      const file = path.join(root, 'syntaxes', 'cuk.tmLanguage.json');
      return textmate.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
  });
  return registry.loadGrammar('source.cuk');
}

/** Every token of `text`: its line, its text and its scopes. */
function tokenise(grammar, text) {
  const tokens = [];
  let state = textmate.INITIAL;
  text.split(/\r\n|\r|\n/).forEach((line, number) => {
    const result = grammar.tokenizeLine(line, state);
    for (const token of result.tokens) {
      tokens.push({ line: number, text: line.slice(token.startIndex, token.endIndex), scopes: token.scopes });
    }
    state = result.ruleStack;
  });
  return tokens;
}

// [line, token text, scope the innermost scope must be].
const EXPECTED = [
  [0, ' still a comment ', 'comment.block.cuk'],
  [0, '*/', 'comment.block.cuk'],
  [0, 'const', 'storage.modifier.cuk'],
  [0, '0x1F', 'constant.numeric.hex.cuk'],
  [1, '0b1010', 'constant.numeric.binary.cuk'],
  [1, '<<', 'keyword.operator.bitwise.shift.cuk'],
  [1, '>>', 'keyword.operator.bitwise.shift.cuk'],
  [2, '1_000', 'constant.numeric.integer.cuk'],
  [2, '<', 'keyword.operator.comparison.cuk'],
  [3, '\\t', 'constant.character.escape.cuk'],
  [3, '\\u{2603}', 'constant.character.escape.unicode.cuk'],
  [3, ' end', 'string.quoted.double.cuk'],
  [4, '1.5e3', 'constant.numeric.float.cuk'],
  [5, '// a line comment with "quotes" and 0x10', 'comment.line.double-slash.cuk'],
];

async function main() {
  const grammar = await loadGrammar();
  const failures = [];
  const fixture = fs.readFileSync(path.join(__dirname, 'fixtures', 'tricky.cuk'), 'utf8');
  const tokens = tokenise(grammar, fixture);
  for (const [line, text, scope] of EXPECTED) {
    const token = tokens.find((t) => t.line === line && t.text === text);
    const innermost = token ? token.scopes[token.scopes.length - 1] : 'no such token';
    if (innermost !== scope) {
      failures.push(`tricky.cuk:${line + 1}: \`${text}\` is ${innermost}, not ${scope}`);
    }
  }
  const examples = path.join(root, '..', '..', 'cuk-examples');
  const files = fs.readdirSync(examples).filter((name) => name.endsWith('.cuk'));
  for (const name of files) {
    const text = fs.readFileSync(path.join(examples, name), 'utf8');
    const tokens = tokenise(grammar, text);
    // Every `kernel` keyword outside comments is a keyword, so no comment or
    // string swallowed code; every line comment ends at its line.
    for (const token of tokens) {
      const innermost = token.scopes[token.scopes.length - 1];
      if (/^\s*kernel\b/.test(token.text) && innermost.startsWith('string')) {
        failures.push(`${name}:${token.line + 1}: \`kernel\` inside a string`);
      }
      if (innermost.startsWith('comment.block') && !text.includes('/*')) {
        failures.push(`${name}:${token.line + 1}: a block comment without \`/*\``);
      }
    }
    const kernels = tokens.filter((t) => t.text === 'kernel' && t.scopes.includes('storage.type.cuk'));
    const declared = (text.match(/^kernel\s/gm) || []).length;
    if (kernels.length !== declared) {
      failures.push(`${name}: ${kernels.length} of ${declared} kernels highlighted`);
    }
  }
  if (failures.length > 0) {
    console.error(failures.join('\n'));
    process.exit(1);
  }
  console.log(`grammar: ${EXPECTED.length} scopes in tricky.cuk, ${files.length} examples tokenised`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
