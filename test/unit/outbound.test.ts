import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { checkUrl, getFollowing, HeaderTimeout, refusedAddress, RefusedUrl } from '../../service/net/outbound.js';

const strict = { allowPrivateNetwork: false };

describe('outbound address guard (service/net/outbound.ts)', () => {
  it('refuses loopback, private, link-local, unique-local, multicast, unspecified and mapped addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ]) {
      assert.ok(refusedAddress(address), `${address} is refused`);
    }
  });

  it('lets public addresses through', () => {
    for (const address of [
      '93.184.215.14',
      '1.1.1.1',
      '8.8.8.8',
      '172.32.0.1',
      '192.169.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
    ]) {
      assert.equal(refusedAddress(address), undefined, address);
    }
  });

  it('refuses 127.0.0.1 in every spelling the URL parser accepts', async () => {
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://localhost/',
      'http://LOCALHOST./',
      'http://api.localhost/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00::1]/',
      'http://0/',
    ]) {
      await assert.rejects(checkUrl(url, strict), RefusedUrl, url);
    }
  });

  it('refuses what is not an http(s) URL, and credentials, naming the problem', async () => {
    await assert.rejects(checkUrl('file:///etc/passwd', strict), /file: is not http or https/);
    await assert.rejects(checkUrl('gopher://example.com/', strict), /gopher: is not http or https/);
    await assert.rejects(checkUrl('not a url', strict), /is not an absolute URL/);
    await assert.rejects(checkUrl('https://user:pass@example.com/', strict), /user name or password/);
  });

  it('refuses a name any of whose addresses is internal, without naming the address, and pins the checked address', async () => {
    const dns: Record<string, string[]> = {
      'rebind.example': ['93.184.215.14', '10.0.0.5'],
      'v6.example': ['fd00::7'],
      'public.example': ['93.184.215.14'],
    };
    const resolve = async (host: string) => {
      if (!dns[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return dns[host]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    for (const [host, address] of [
      ['rebind.example', '10.0.0.5'],
      ['v6.example', 'fd00::7'],
    ] as const) {
      await assert.rejects(checkUrl(`https://${host}/hook`, { ...strict, resolve }), (err: Error) => {
        assert.ok(err instanceof RefusedUrl);
        assert.equal(
          err.message,
          `${host} resolves to an internal address; the service does not connect to internal addresses.`,
        );
        assert.ok(!err.message.includes(address), 'the address stays unsaid');
        return true;
      });
    }
    await assert.rejects(
      checkUrl('https://nowhere.example/', { ...strict, resolve }),
      /could not be resolved \(ENOTFOUND\)/,
    );
    const target = await checkUrl('https://public.example/hook', { ...strict, resolve });
    assert.deepEqual([target.address, target.family, target.url.hostname], ['93.184.215.14', 4, 'public.example']);
  });

  it('refuses ports other than 80 and 443, naming the rule, unless --allow-any-port or --allow-private-network', async () => {
    for (const url of [
      'http://93.184.215.14/',
      'https://93.184.215.14/',
      'http://93.184.215.14:443/',
      'https://93.184.215.14:80/',
    ])
      assert.equal((await checkUrl(url, strict)).address, '93.184.215.14', url);
    for (const [url, port] of [
      ['http://93.184.215.14:8080/', 8080],
      ['https://93.184.215.14:22/', 22],
      ['http://93.184.215.14:6379/', 6379],
    ] as const) {
      await assert.rejects(
        checkUrl(url, strict),
        new RefusedUrl(`port ${port} is refused; the service connects to ports 80 and 443 only.`),
      );
      assert.equal((await checkUrl(url, { ...strict, allowAnyPort: true })).address, '93.184.215.14');
      assert.equal((await checkUrl(url, { allowPrivateNetwork: true })).address, '93.184.215.14');
    }
    // A name on another port is refused before the DNS is asked.
    const resolve = () => Promise.reject(new Error('the DNS was asked'));
    await assert.rejects(checkUrl('http://files.example:25/', { ...strict, resolve }), /port 25 is refused/);
  });

  it('lets everything through with --allow-private-network, and connects to the checked address', async () => {
    const target = await checkUrl('http://127.0.0.1:8080/hook', { allowPrivateNetwork: true });
    assert.equal(target.address, '127.0.0.1');
    assert.equal((await checkUrl('http://localhost:9/', { allowPrivateNetwork: true })).url.hostname, 'localhost');
  });

  it('checks every redirect of an import as the first URL: a public file cannot send the service inside', async () => {
    // files.example stands for a public server; the test dials it on 127.0.0.1, where its own server answers.
    const server = createServer((req, res) => {
      const to: Record<string, string> = {
        '/to-private': 'http://10.0.0.5/secret',
        '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
        '/to-name': 'http://intranet.example/admin',
        '/to-file': 'file:///etc/passwd',
        '/to-public': '/video.mp4',
        '/to-port': 'http://files.example:8080/video.mp4',
      };
      if (to[req.url!]) return res.writeHead(302, { location: to[req.url!] }).end();
      res.writeHead(200, { 'content-type': 'video/mp4' }).end('bytes');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const dns: Record<string, string> = { 'files.example': '93.184.215.14', 'intranet.example': '192.168.7.7' };
    const policy = {
      ...strict,
      resolve: async (host: string) => [{ address: dns[host]!, family: 4 }],
      dial: () => ({ address: '127.0.0.1', family: 4 as const, port }),
    };
    const signal = AbortSignal.timeout(5000);
    try {
      for (const [path, why] of [
        [
          '/to-private',
          /^it redirected to http:\/\/10\.0\.0\.5\/secret, which is refused: 10\.0\.0\.5 is a private address/,
        ],
        ['/to-metadata', /which is refused: 169\.254\.169\.254 is a link-local address \(cloud metadata lives there\)/],
        ['/to-name', /which is refused: intranet\.example resolves to an internal address;/],
        ['/to-file', /which is refused: file: is not http or https/],
        ['/to-port', /which is refused: port 8080 is refused; the service connects to ports 80 and 443 only/],
      ] as const) {
        await assert.rejects(getFollowing(`http://files.example${path}`, policy, signal, 5000), (err: Error) => {
          assert.ok(err instanceof RefusedUrl);
          assert.match(err.message, why);
          return true;
        });
      }
      const { url, res } = await getFollowing('http://files.example/to-public', policy, signal, 5000);
      res.resume();
      assert.equal(url.href, 'http://files.example/video.mp4');
      assert.equal(res.statusCode, 200);
    } finally {
      server.close();
    }
  });

  it('gives up on an answer whose head does not come in time, and closes a redirect without reading its body', async () => {
    let redirectClosed = false;
    const server = createServer((req, res) => {
      if (req.url === '/silent') return; // never answers
      if (req.url === '/endless-redirect') {
        req.socket.once('close', () => (redirectClosed = true));
        res.writeHead(302, { location: '/video.mp4' });
        return void res.write('a body that never ends');
      }
      res.writeHead(200, { 'content-type': 'video/mp4' }).end('bytes');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const policy = {
      ...strict,
      resolve: async () => [{ address: '93.184.215.14', family: 4 }],
      dial: () => ({ address: '127.0.0.1', family: 4 as const, port }),
    };
    try {
      await assert.rejects(
        getFollowing('http://files.example/silent', policy, AbortSignal.timeout(5000), 200),
        new HeaderTimeout('the URL sent no response headers within 0.2 s'),
      );
      const { res } = await getFollowing(
        'http://files.example/endless-redirect',
        policy,
        AbortSignal.timeout(5000),
        5000,
      );
      res.resume();
      assert.equal(res.statusCode, 200);
      for (let i = 0; i < 40 && !redirectClosed; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(redirectClosed, "the redirect's connection was closed, its body unread");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
