// What criteria does at its exit when the terminal it started on has hung up (the window
// closed, the SSH session dropped, `script` killed): Node 20 would crash there. Node
// records at start the terminal modes of stdin, stdout and stderr and puts them back in
// an exit handler (ResetStdio); Node 20 asserts that tcsetattr() succeeded, and on a
// hung-up terminal it fails with EIO: the process aborts (SIGABRT, then SIGSEGV while
// printing the assertion), whatever the command's own exit code — found by a new-user
// trial: an `apply` whose terminal was closed mid-run stopped its run as asked, then died
// of SIGSEGV; one run to its end under `trap '' HUP` exited 139 instead of 0. Node 22 and 24
// ignore that failure. Node skips a descriptor the program has reopened on another file,
// so each hung-up one is reopened on /dev/null before the exit: the command ends with its
// own code, and anything still written goes nowhere, as it would have.
// CommonJS, as bin/criteria is (bin/package.json).
"use strict";
const { closeSync, openSync } = require("node:fs");
const { isatty } = require("node:tty");

/** The standard descriptors (0, 1, 2) that were terminals when criteria started. */
const TERMINALS = [0, 1, 2].filter((fd) => isatty(fd));

/**
 * Reopens on /dev/null each standard descriptor that was a terminal at start and no longer
 * is one (isatty() fails on a hung-up terminal); returns the descriptors reopened. Never
 * throws: a descriptor that cannot be reopened is left as it is.
 * @returns {number[]}
 */
function releaseHungUpTerminals() {
  const released = [];
  for (const fd of TERMINALS) {
    if (isatty(fd)) continue;
    try {
      closeSync(fd);
      // The lowest free descriptor: the one just closed.
      const reopened = openSync("/dev/null", fd === 0 ? "r" : "w");
      if (reopened === fd) released.push(fd);
      else closeSync(reopened);
    } catch {
      // Left as it is: Node's exit handler then does what it does.
    }
  }
  return released;
}

module.exports = { releaseHungUpTerminals };
