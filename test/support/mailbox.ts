import { SMTPServer } from 'smtp-server';
import { freePort } from '../../src/stack/ports';

export interface Mail {
  to: string;
  raw: string;
}

/**
 * A real SMTP server in the test process: the API sends login codes to it with nodemailer over
 * TCP, exactly as it would to a production relay, and tests read what arrived.
 */
export class Mailbox {
  readonly mails: Mail[] = [];
  private server?: SMTPServer;
  url = '';

  async start(): Promise<void> {
    const port = await freePort();
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          for (const rcpt of session.envelope.rcptTo) this.mails.push({ to: rcpt.address.toLowerCase(), raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `smtp://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  count(email: string): number {
    return this.mails.filter((m) => m.to === email.toLowerCase()).length;
  }

  /** The code in the newest mail to `email` (it arrives before request-otp answers). */
  codeFor(email: string): string {
    const mail = [...this.mails].reverse().find((m) => m.to === email.toLowerCase());
    const code = mail && /login code is (\d{6})/.exec(mail.raw)?.[1];
    if (!code) throw new Error(`no login code was mailed to ${email}`);
    return code;
  }
}
