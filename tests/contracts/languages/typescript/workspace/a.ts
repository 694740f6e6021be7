import { Base } from './b';

export class Child extends Base {}
