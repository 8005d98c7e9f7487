import assert from 'node:assert/strict';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Db } from '../../service/db/index.js';
import { Leases } from '../../service/leases.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The sweeper's lease (service/leases.ts): of the processes sharing one database, one holds a lease at a time. Two
 * `Leases` are two processes' holders (each its own name) on two connections to one SQLite file.
 */
describe('leases', () => {
  let one: Db;
  let two: Db;
  before(async () => {
    const file = join(await tempDir('leases-'), 'service.db');
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

  it("takes at once a lease whose holder was a process of this machine that is gone, not a live one's", async () => {
    const a = new Leases(one);
    // Pid 2^22 + 1 is above Linux's largest (pid_max is at most 2^22): no such process.
    await one
      .insertInto('leases')
      .values({ name: 'dead', holder: `${hostname()}:4194305:x`, until: Date.now() + 60_000 })
      .execute();
    assert.equal(await a.take('dead', 60_000), true);
    await one
      .insertInto('leases')
      .values({ name: 'alive', holder: `${hostname()}:${process.pid}:x`, until: Date.now() + 60_000 })
      .execute();
    assert.equal(await a.take('alive', 60_000), false, 'this very process, under another name, is alive');
    await one
      .insertInto('leases')
      .values({ name: 'elsewhere', holder: 'another-machine:4194305:x', until: Date.now() + 60_000 })
      .execute();
    assert.equal(await a.take('elsewhere', 60_000), false, "another machine's pids are not this machine's");
  });
});
