package dev.inferd.server.store;

import org.junit.jupiter.api.Tag;

/** {@link LoadClaimsTest} on a real PostgreSQL, where gateways on several machines claim through one server. */
@Tag("slow")
class PostgresLoadClaimsTest extends LoadClaimsTest {
    @Override
    String kind() {
        return TestDatabases.POSTGRESQL;
    }
}
