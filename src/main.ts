// `npm start`: one gateway process serving HTTP until SIGTERM/SIGINT.
import { ConfigError, loadConfig } from './config.ts';
import { createGateway } from './gateway.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const gw = await createGateway(config);
  const log = gw.services.log;
  // Handlers first: a signal that arrives while the server starts still shuts down cleanly.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      log.error('shutdown took over 15 s; exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    await gw.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await gw.app.listen({ port: config.port, host: config.host });

  const b = gw.bootstrap;
  const lines = [
    '',
    `Karibche ${config.mode} gateway on ${config.publicUrl} (database: ${gw.services.db.kind})`,
    `  API reference  ${config.publicUrl}/docs`,
  ];
  if (b?.adminTokenFile) lines.push(`  admin token    ${b.adminTokenFile}`);
  if (b?.demo) {
    lines.push(`  demo merchant  ${b.demoFile}${b.demoCreated ? ' (created now)' : ''}`);
    lines.push(JSON.stringify({ credentials: b.demo }, null, 2));
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`karibche: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`karibche: failed to start: ${err?.stack ?? err}\n`);
  process.exit(1);
});
