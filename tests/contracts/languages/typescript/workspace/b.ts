export class Base { hello() { return 1; } }
