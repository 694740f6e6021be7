export class Widget {
  render() { return null; }
}
