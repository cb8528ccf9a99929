#!/bin/sh
# Creates Temporal's two databases and brings their schemas to this temporal-sql-tool's version
# (the procedure of temporalio/samples-server). Safe to run on every start: `create` skips an
# existing database, `setup-schema -v 0.0` leaves a versioned schema alone, `update-schema`
# applies only the versions still missing. Connection settings come from SQL_PLUGIN, SQL_HOST,
# SQL_PORT, SQL_USER and SQL_PASSWORD, which temporal-sql-tool reads itself. The schemas are the
# ones embedded in the tool, so the same script runs in Temporal's admin-tools image
# (docker-compose.yml) and with the tool `npm run stack:prod` builds (src/stack/temporal-cluster.ts).
set -eu

for pair in temporal:temporal visibility:temporal_visibility; do
  schema="${pair%%:*}"
  db="${pair#*:}"
  echo "database $db: creating if missing, then updating its schema"
  temporal-sql-tool --db "$db" create
  temporal-sql-tool --db "$db" setup-schema -v 0.0
  temporal-sql-tool --db "$db" update-schema -s "postgresql/v12/$schema"
done
echo 'Temporal schemas are up to date'
