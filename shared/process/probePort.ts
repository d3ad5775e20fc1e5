import net from 'node:net';

/**
 * The exit code of an API process whose port is taken: the supervisor then stops the service and says
 * why, instead of restarting the process forever.
 */
export const PORT_IN_USE_EXIT_CODE = 3;

/** One sentence for an operator whose PORT cannot be listened on. */
export const describePortProblem = (port: number, code: string | undefined): string =>
  code === 'EACCES'
    ? `Port ${port} needs privileges this user lacks: set PORT to 1024 or above.`
    : `Port ${port} is already in use (another instance of this service, or another program): stop it, or set PORT to a free port.`;

/**
 * Whether nobody listens on `port` yet. The probe binds without SO_REUSEPORT, so it also fails beside a
 * running service whose API processes share the port with SO_REUSEPORT: a second service never joins the
 * first one's listeners, where the kernel would split traffic between two services with different settings.
 * Resolves undefined when free, or the bind's error code.
 */
export const probePort = (port: number): Promise<string | undefined> =>
  new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EADDRINUSE'));
    probe.listen({ port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
