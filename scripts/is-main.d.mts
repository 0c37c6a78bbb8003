export declare const isMain: (url: string) => boolean;
