package dev.inferd.server.store;

import org.junit.jupiter.api.Tag;

/** {@link DatabaseTest} on a real PostgreSQL (zonky's embedded server: its first start takes some seconds). */
@Tag("slow")
class PostgresDatabaseTest extends DatabaseTest {
    @Override
    String kind() {
        return TestDatabases.POSTGRESQL;
    }
}
