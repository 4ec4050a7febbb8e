/** A value behind a proxy that logs what is read of it: to prove that a bounded walk reads no further than its bound (counting, not timing). */

/** `value` behind a proxy that records each own member read (`name.key`) and each listing of its keys (`name keys`) in `log`. */
export const logReads = <T extends object>(value: T, log: string[], name: string): T =>
  new Proxy(value, {
    get: (target, key, receiver) => {
      if (typeof key === 'string' && Object.hasOwn(target, key)) log.push(`${name}.${key}`);
      return Reflect.get(target, key, receiver);
    },
    ownKeys: (target) => {
      log.push(`${name} keys`);
      return Reflect.ownKeys(target);
    },
  });
