export interface Greeting { text(): string }

export class Greeter implements Greeting {
  constructor(private name: string) {}
  greet(): string { return `hi ${this.name}`; }
  text(): string { return this.greet(); }
}

export enum Mood { Happy, Sad }
export type Name = string;
