export function g() { return 2; }
