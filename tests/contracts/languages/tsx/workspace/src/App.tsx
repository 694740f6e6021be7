import { Greeter } from './greeter';

export function Hello({ who }: { who: string }) { return <b>{new Greeter(who).greet()}</b>; }
export const App = () => <div><Hello who="x" /></div>;
