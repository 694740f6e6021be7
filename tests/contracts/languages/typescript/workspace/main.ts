import { f } from "./util";
import { helper } from "./esm.js";

export function run(): number { return f() + helper(); }
