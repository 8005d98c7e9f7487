import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { openDatabase, type Db } from '../../service/db/index.js';
import { Leases, PID_SPACE } from '../../service/leases.js';
import { tempDir } from '../helpers/temp.js';

const run = promisify(execFile);

/**
 * The sweeper's lease (service/leases.ts): of the processes sharing one database, one holds a lease at a time. Two
 * `Leases` are two processes' holders (each its own name) on two connections to one SQLite file.
 */
describe('leases', () => {
  let file: string;
  let one: Db;
  let two: Db;
  before(async () => {
    file = join(await tempDir('leases-'), 'service.db');
    one = await openDatabase(file);
    two = await openDatabase(file);
  });
  after(() => Promise.all([one.destroy(), two.destroy()]));

  it('is held by one holder at a time, renewed by it, and taken by another once released or run out', async () => {
    const [a, b] = [new Leases(one), new Leases(two)];
    assert.equal(await a.take('sweeper', 60_000), true);
    assert.equal(await b.take('sweeper', 60_000), false, 'held by a');
    assert.equal(await a.take('sweeper', 60_000), true, 'a renews its own');
    await a.release('sweeper');
    assert.equal(await b.take('sweeper', 60_000), true, 'released: b takes it');
    assert.equal(await a.take('sweeper', 60_000), false);

    await b.take('other', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await a.take('other', 60_000), true, 'run out: a takes it');
  });

  it("takes at once a lease whose holder was a process of this pid namespace that is gone, not a live one's", async () => {
    const a = new Leases(one);
    const held = (name: string, holder: string) =>
      one
        .insertInto('leases')
        .values({ name, holder, until: Date.now() + 60_000 })
        .execute();
    // Pid 2^22 + 1 is above Linux's largest (pid_max is at most 2^22): no such process.
    await held('dead', `${PID_SPACE}:${hostname()}:4194305:x`);
    assert.equal(await a.take('dead', 60_000), true);
    await held('alive', `${PID_SPACE}:${hostname()}:${process.pid}:x`);
    assert.equal(await a.take('alive', 60_000), false, 'this very process, under another name, is alive');
    await held('elsewhere', `another-pid-namespace:${hostname()}:4194305:x`);
    assert.equal(
      await a.take('elsewhere', 60_000),
      false,
      "another namespace's pids are not this one's, whatever the host name",
    );
  });

  it('is not taken by a process of another pid namespace with the same host name (a container), while alive', async () => {
    const here = new Leases(one);
    assert.equal(await here.take('shared', 60_000), true);
    // A process of a pid namespace of its own and its own /proc, as a container gets: this test's pid is nobody
    // there. A user namespace too, so that it needs no privilege.
    const script = [
      `import { openDatabase } from ${JSON.stringify(join(import.meta.dirname, '../../service/db/index.ts'))};`,
      `import { Leases } from ${JSON.stringify(join(import.meta.dirname, '../../service/leases.ts'))};`,
      `const db = await openDatabase(${JSON.stringify(file)});`,
      'const leases = new Leases(db);',
      "const taken = await leases.take('shared', 60_000);",
      // Whether this test's pid is nobody there: a check by host name and signal 0 would take the lease.
      `let nobody = false; try { process.kill(${process.pid}, 0); } catch (err) { nobody = err.code === 'ESRCH'; }`,
      'console.log(JSON.stringify({ taken, holder: leases.holder, nobody }));',
      'await db.destroy();',
    ].join('\n');
    const { stdout } = await run('unshare', [
      ...['--user', '--map-root-user', '--pid', '--fork', '--mount-proc'],
      ...[process.execPath, '--import', 'tsx', '--input-type=module', '-e', script],
    ]);
    const there = JSON.parse(stdout) as { taken: boolean; holder: string; nobody: boolean };
    const [space, host] = there.holder.split(':');
    assert.equal(host, hostname(), 'the same host name');
    assert.notEqual(space, PID_SPACE, 'another pid namespace');
    assert.equal(there.nobody, true, "this test's pid is nobody in the other namespace");
    assert.equal(there.taken, false, 'the lease of a live holder, whose pid the other namespace does not know');
    assert.equal(
      (await one.selectFrom('leases').select('holder').where('name', '=', 'shared').executeTakeFirst())?.holder,
      here.holder,
    );
  });
});
