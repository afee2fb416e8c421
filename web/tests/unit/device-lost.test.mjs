import test from 'node:test';
import assert from 'node:assert/strict';
import { unlessLost } from '../../src/gpu/device.js';

// A device whose `lost` promise the test settles, as a browser's GPUDevice has one.
function fakeDevice() {
  let lose;
  const lost = new Promise((r) => {
    lose = r;
  });
  return { device: { lost }, lose };
}

test('a wait the lost device never settles ends with the reason', async () => {
  const { device, lose } = fakeDevice();
  const never = new Promise(() => {});
  const waiting = unlessLost(device, never);
  lose({ reason: 'unknown', message: 'A valid external Instance reference no longer exists.' });
  await assert.rejects(waiting, /the WebGPU device was lost \(A valid external Instance reference no longer exists\.\)/);
});

test('work that finishes before any loss passes its value through', async () => {
  const { device, lose } = fakeDevice();
  assert.equal(await unlessLost(device, Promise.resolve(42)), 42);
  lose({ reason: 'destroyed', message: '' });
  // A failure of the work itself is not hidden by the race.
  const { device: d2 } = fakeDevice();
  await assert.rejects(unlessLost(d2, Promise.reject(new Error('mapAsync aborted'))), /mapAsync aborted/);
});

test('a loss with no message names its reason', async () => {
  const { device, lose } = fakeDevice();
  lose({ reason: 'destroyed' });
  await assert.rejects(unlessLost(device, new Promise(() => {})), /lost \(destroyed\)/);
});
