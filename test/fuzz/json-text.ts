/**
 * JSON *text* as a tree the fuzzers can mutate. Plain objects and arrays are written as JSON; two
 * wrappers write what a JS value cannot hold: raw text (numbers beyond 2^53, `1e400`, deep nesting,
 * escaped lone surrogates) and objects with duplicate keys. Every object is built with
 * `Object.fromEntries`, so a `__proto__` key is an own property and is written like any other key,
 * exactly as `JSON.parse` on the other side will read it.
 */

/** Text written into the JSON as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written entry by entry, duplicate keys included (`JSON.parse` keeps the last one). */
export class DuplicateKeys {
  constructor(readonly entries: [string, Tree][]) {}
}

export type Tree =
  | null
  | boolean
  | number
  | string
  | RawJson
  | DuplicateKeys
  | Tree[]
  | { [key: string]: Tree };
export type TreeObject = { [key: string]: Tree };
export type Path = (string | number)[];

export const isObject = (value: Tree | undefined): value is TreeObject =>
  value !== undefined &&
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof RawJson) &&
  !(value instanceof DuplicateKeys);

export const toJsonText = (value: Tree): string => {
  if (value instanceof RawJson) return value.text;
  if (value instanceof DuplicateKeys)
    return `{${value.entries.map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (isObject(value))
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
};

/** Arrays longer than this (the 10 000-element ones) are leaves: mutating inside them adds nothing. */
const MAX_WALKED_ARRAY = 100;

/** Every node below the root, depth first. */
export const pathsOf = (value: Tree, prefix: Path = []): Path[] => {
  const children: [string | number, Tree][] = Array.isArray(value)
    ? value.length <= MAX_WALKED_ARRAY
      ? value.map((item, index) => [index, item])
      : []
    : isObject(value)
      ? Object.entries(value)
      : [];
  return children.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
};

/** The root and every plain object below it. */
export const objectPathsOf = (value: Tree): Path[] =>
  [[], ...pathsOf(value)].filter((path) => isObject(valueAt(value, path)));

export const valueAt = (value: Tree, path: Path): Tree => {
  let node: Tree = value;
  for (const key of path) {
    if (Array.isArray(node)) node = node[key as number] ?? null;
    else if (isObject(node)) node = node[key as string] ?? null;
    else return null;
  }
  return node;
};

/** A copy of `value` with the node at `path` replaced by `update(node)`, or removed when it gives undefined. */
export const updateAt = (value: Tree, path: Path, update: (node: Tree) => Tree | undefined): Tree => {
  const [key, ...rest] = path;
  if (key === undefined) return update(value) ?? null;
  const child = (node: Tree) => (rest.length === 0 ? update(node) : updateAt(node, rest, update));
  if (Array.isArray(value))
    return value.flatMap((item, index) => {
      if (index !== key) return [item];
      const next = child(item);
      return next === undefined ? [] : [next];
    });
  if (isObject(value))
    return Object.fromEntries(
      Object.entries(value).flatMap(([name, item]) => {
        if (name !== key) return [[name, item]];
        const next = child(item);
        return next === undefined ? [] : [[name, next]];
      }),
    );
  return value;
};

/** A copy of the object with `key` set (an own property, whatever its name), replacing any old one. */
export const withKey = (object: TreeObject, key: string, value: Tree): TreeObject =>
  Object.fromEntries([...Object.entries(object).filter(([name]) => name !== key), [key, value]]);
