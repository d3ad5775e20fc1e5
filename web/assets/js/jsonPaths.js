// Where each value of a JSON text starts, by the path the model checker names it with
// (`transitions.Trial.Active`, `fields[2].value`; docs/models.md "Checking"), so an issue can be shown on
// its line. A small scanner of its own: JSON.parse keeps no positions. It stops quietly at the first
// character that is not JSON; the paths found before it still have their places.

const WHITESPACE = /\s/;

/**
 * Every value's (and member key's) start in `text` as { line, column } (1-based), by path; the root is ''.
 * A member's key is recorded under its path too, since that is where a reader looks for the member.
 */
export const locateJsonPaths = (text) => {
  const places = new Map();
  const lineStarts = [0];
  for (let index = 0; index < text.length; index += 1) {
    if (text[index] === '\n') {
      lineStarts.push(index + 1);
    }
  }
  const placeOf = (offset) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (lineStarts[middle] <= offset) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return { line: low + 1, column: offset - lineStarts[low] + 1, offset };
  };

  let position = 0;
  const skip = () => {
    while (position < text.length && WHITESPACE.test(text[position])) {
      position += 1;
    }
  };
  const fail = () => {
    throw new SyntaxError('not JSON');
  };
  const readString = () => {
    const start = position;
    position += 1;
    while (position < text.length && text[position] !== '"') {
      position += text[position] === '\\' ? 2 : 1;
    }
    if (position >= text.length) {
      fail();
    }
    position += 1;
    return JSON.parse(text.slice(start, position));
  };
  const child = (path, key) => (typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`);

  const readValue = (path, record = true) => {
    skip();
    if (record) {
      places.set(path, placeOf(position));
    }
    const character = text[position];
    if (character === '{') {
      position += 1;
      skip();
      if (text[position] === '}') {
        position += 1;
        return;
      }
      for (;;) {
        skip();
        if (text[position] !== '"') {
          fail();
        }
        const keyAt = position;
        const key = readString();
        places.set(child(path, key), placeOf(keyAt));
        skip();
        if (text[position] !== ':') {
          fail();
        }
        position += 1;
        // The value's own start is recorded too, where an expression's character positions count from.
        skip();
        places.set(`${child(path, key)}#value`, placeOf(position));
        readValue(child(path, key), false);
        skip();
        if (text[position] === ',') {
          position += 1;
          continue;
        }
        if (text[position] === '}') {
          position += 1;
          return;
        }
        fail();
      }
    }
    if (character === '[') {
      position += 1;
      skip();
      if (text[position] === ']') {
        position += 1;
        return;
      }
      for (let index = 0; ; index += 1) {
        readValue(child(path, index));
        skip();
        if (text[position] === ',') {
          position += 1;
          continue;
        }
        if (text[position] === ']') {
          position += 1;
          return;
        }
        fail();
      }
    }
    if (character === '"') {
      readString();
      return;
    }
    const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(position, position + 64));
    if (literal === null) {
      fail();
    }
    position += literal[0].length;
  };

  try {
    readValue('');
  } catch {
    // The places found so far stand.
  }
  return places;
};

/**
 * The line and column of an issue of the checker: its path's place (or its nearest parent's), moved to the
 * character an expression's message names ("… (at character 8)") inside the string that holds it.
 */
export const placeOfIssue = (places, issue) => {
  let path = String(issue.path ?? '');
  while (path !== '' && !places.has(path)) {
    const shorter = path.replace(/(?:\.[^.[\]]+|\[\d+\])$/, '');
    path = shorter === path ? '' : shorter;
  }
  const place = places.get(path) ?? { line: 1, column: 1, offset: 0 };
  const character = /\(at character (\d+)\)\s*$/.exec(String(issue.message ?? ''));
  const value = places.get(`${path}#value`);
  if (character !== null && value !== undefined && path === String(issue.path ?? '')) {
    // One past the opening quote; an expression holding escapes or new lines is rare enough to ignore.
    return { line: value.line, column: value.column + Number(character[1]) };
  }
  return { line: place.line, column: place.column };
};
