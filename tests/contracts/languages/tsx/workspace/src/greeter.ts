export class Greeter {
  constructor(private name: string) {}
  greet(): string { return `hi ${this.name}`; }
}
