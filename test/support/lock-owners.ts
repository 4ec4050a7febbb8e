/**
 * Owners for the data directory's lock files that tests write: a live process that is not this
 * one, and what /proc says of a process. No process of our own: the unit tier starts none.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';

/** A pid above the kernel's largest pid_max (2^22): no process can have it. */
export const DEAD_PID = 4194305;

export const hasProc = fs.existsSync('/proc/self/stat');

/** Field 22 of /proc/<pid>/stat: when the process started (clock ticks since boot). */
export const startTime = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
};

/** A live process that is not this one: the process that started this test file (the test runner), alive while the file runs. */
export const liveOtherPid = () => {
  assert.notEqual(process.ppid, process.pid);
  assert.equal(process.kill(process.ppid, 0), true, 'the parent process is alive');
  return process.ppid;
};
