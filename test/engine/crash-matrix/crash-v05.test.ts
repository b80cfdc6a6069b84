/** The crash matrix of `crash_v05` (test/engine/crash-matrix/matrix.ts): one file per workflow, so they run in parallel. */
import { crashMatrix, REFERENCES } from "./matrix.js";

crashMatrix(REFERENCES[2]);
