export function Button({ label }) { return <button>{label}</button>; }
