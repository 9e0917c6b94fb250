package dev.inferd.server.cloud;

import dev.inferd.server.store.TestDatabases;
import net.jqwik.api.Tag;

/** {@link HostedInputFuzzTest} on a real PostgreSQL. */
@Tag("slow")
class PostgresHostedInputFuzzTest extends HostedInputFuzzTest {
    @Override
    String kind() {
        return TestDatabases.POSTGRESQL;
    }
}
