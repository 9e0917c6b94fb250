package dev.inferd.server.cloud;

import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.Tag;

/** {@link AccountIsolationTest}, the whole deployment on a real PostgreSQL. */
@Tag("slow")
class PostgresAccountIsolationTest extends AccountIsolationTest {
    @Override
    String kind() {
        return TestDatabases.POSTGRESQL;
    }
}
