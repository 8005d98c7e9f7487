/** What servers.ts uses of s3rver 3.x, which ships no types. */
declare module 's3rver' {
  export default class S3rver {
    constructor(options: {
      address: string;
      port: number;
      silent?: boolean;
      directory: string;
      configureBuckets?: { name: string; configs: (string | Buffer)[] }[];
    });
    run(): Promise<unknown>;
    close(): Promise<void>;
  }
}
