package dev.inferd.server.http;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A second server on a port that is taken fails to start with an exception, so that {@code serve} says so and
 * exits: Helidon itself only logs the failed bind and hands back a server that is not running, and
 * {@code serve} then announced that it served on port -1.
 */
class PortInUseTest {
    @Test
    void aPortInUseIsAnErrorNotAServerOnPortMinusOne() {
        try (var first = new TestServer()) {
            int taken = first.server.port();
            assertThatThrownBy(() -> InferdServer.start("127.0.0.1", taken,
                    Map.of(TestServer.MODEL, new FakeTextGenerator(TestServer.MODEL, TestServer.CONTEXT))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port is in use");
        }
    }
}
