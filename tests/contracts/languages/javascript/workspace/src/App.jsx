import { Button } from './Button';

export const App = () => <div><Button label="x" /></div>;
