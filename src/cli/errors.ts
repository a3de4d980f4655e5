/** An error the CLI reports as one line (no stack): a usage mistake or the gateway's answer. */
export class CliError extends Error {}
