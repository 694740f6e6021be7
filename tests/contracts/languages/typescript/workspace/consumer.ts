// the package imports itself by its own name: package.json `exports`, built files in dist/
import { run } from "greet-kit";
import { f } from "greet-kit/util";
import type { Greeting } from "greet-kit/greeter";

export function both(g?: Greeting): number { return run() + f(); }
