export const helper = (): number => 2;
