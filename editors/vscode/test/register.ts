// `require("vscode")` resolves to the stub (the real module exists only inside VS Code). A test
// file imports this first.
import Module = require("module");
import * as path from "path";

const moduleWithResolve = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const original = moduleWithResolve._resolveFilename;
moduleWithResolve._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (request === "vscode") {
    return path.join(__dirname, "vscode-stub.js");
  }
  return original.call(this, request, ...rest);
};
