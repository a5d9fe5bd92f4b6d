import { escapeForTerminal, fitToWidth, oneLineForTerminal, truncateToWidth } from './terminal-text';

describe('escapeForTerminal', () => {
  it('turns C0, DEL and C1 controls into visible escapes, so no escape sequence reaches the terminal', () => {
    expect(escapeForTerminal('a\u001B[2Jb\u0007c\u0000d\u007Fe\u009B31mf\r\n\t')).toBe('a\\x1B[2Jb\\x07c\\x00d\\x7Fe\\x9B31mf\\x0D\\x0A\\x09');
  });

  it('escapes bidirectional overrides and isolates, line separators and lone surrogates', () => {
    expect(escapeForTerminal('x\u202Ey\u2066z\u2028w\uD800v')).toBe('x\\u202Ey\\u2066z\\u2028w\\uD800v');
  });

  it('keeps printable text as it is: accents, CJK, emoji, brackets and backslashes', () => {
    const text = '[sales].[Überträge_表_🚀] \\x1B is already text';
    expect(escapeForTerminal(text)).toBe(text);
  });
});

describe('oneLineForTerminal', () => {
  it('puts a message on one line before escaping what is left', () => {
    expect(oneLineForTerminal('  COPY failed:\r\n\tvalue \u001B[31mred\u001B[0m  ')).toBe('COPY failed: value \\x1B[31mred\\x1B[0m');
  });
});

describe('truncateToWidth and fitToWidth', () => {
  it('cuts by code point with an ellipsis, never inside a surrogate pair', () => {
    expect(truncateToWidth('🚀🚀🚀🚀', 3)).toBe('🚀🚀…');
    expect(truncateToWidth('abc', 3)).toBe('abc');
    expect(truncateToWidth('abc', 0)).toBe('');
  });

  it('pads to the width', () => {
    expect(fitToWidth('ab', 4)).toBe('ab  ');
    expect(fitToWidth('abcdef', 4)).toBe('abc…');
  });
});
