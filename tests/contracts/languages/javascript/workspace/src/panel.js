import { Widget } from './base';

export class Panel extends Widget {
  render() { return this.title(); }
  title() { return 'p'; }
}
