import net from 'node:net';

// Imported first by scripts/docs.ts: the docs are generated from code, never from a running
// service, so any connection attempt (PostgreSQL, Temporal, MinIO, a DNS-named host) is a bug in
// what the generator imports, and fails it at once.
net.Socket.prototype.connect = function refuse(): never {
  throw new Error('the docs generator connected to something: generated pages must come from code alone');
};
