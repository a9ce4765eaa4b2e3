import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
function chain(e: any) { const out = []; let c = e; while (c) { out.push({ name: c.name, ctor: c.constructor?.name, code: c.code, msg: c.message, details: c.details }); c = c.cause; } return out; }
async function main() {
  try { await Connection.connect({ address: '127.0.0.1:1', connectTimeout: '2s' }); } catch (e) { console.log('conn', chain(e)); }
  try { await NativeConnection.connect({ address: '127.0.0.1:1' }); } catch (e) { console.log('native', chain(e)); }
  const connection = await Connection.connect({ address: '127.0.0.1:17233' });
  const client = new Client({ connection });
  try { await client.workflow.getHandle('nope').query('state'); } catch (e) { console.log('notfound', chain(e)); }
  const h = await client.workflow.start('agentTurn', { taskQueue: 'nobody-' + Date.now(), workflowId: 'probe-' + Date.now(), args: [{ agent: 'assistant', input: 'x' }] });
  try { await h.query('state'); } catch (e) { console.log('nopoller', chain(e)); }
  try { await h.executeUpdate('decide', { args: [{ id: 'x', approved: true }] }); } catch (e) { console.log('update', chain(e)); }
  await h.terminate();
  try { await h.executeUpdate('decide', { args: [{ id: 'x', approved: true }] }); } catch (e) { console.log('update-closed', chain(e)); }
}
main().then(() => process.exit(0));
