// sdkCheck.ts — fails the type check when the SDK implementation
// (./index.ts) no longer satisfies its published declaration
// (web/sdk/index.d.ts): every declared name must exist with a compatible
// type. Nothing here runs.
type Declared = typeof import('@cube/console-sdk');
type Implemented = typeof import('./index');
type Satisfies<T extends Declared> = T;
export type SdkMatchesDeclaration = Satisfies<Implemented>;
