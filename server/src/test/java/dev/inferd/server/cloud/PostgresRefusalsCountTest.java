package dev.inferd.server.cloud;

import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.Tag;

/** {@link RefusalsCountTest} on a real PostgreSQL. */
@Tag("slow")
class PostgresRefusalsCountTest extends RefusalsCountTest {
    @Override
    String kind() {
        return TestDatabases.POSTGRESQL;
    }
}
