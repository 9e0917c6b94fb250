package dev.inferd.engine.chat.jinja;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonReaderTest {
    @Test
    void readsWhatPythonsJsonLoadsReads() {
        Object v = JsonReader.parse(" {\"b\": [1, -2.5, 1e3, true, false, null], \"a\": \"x\\n\\u00e9\\\"\", \"big\": 12345678901234567890} ");
        assertThat(v).isInstanceOf(Map.class);
        Map<?, ?> m = (Map<?, ?>) v;
        assertThat(List.copyOf(m.keySet())).isEqualTo(List.of("b", "a", "big"));
        assertThat((List<?>) m.get("b")).isEqualTo(Arrays.asList(1L, -2.5, 1000.0, true, false, null));
        assertThat(m.get("a")).isEqualTo("x\né\"");
        assertThat(m.get("big")).isEqualTo(new BigInteger("12345678901234567890"));
        assertThat(Json.write(v)).isEqualTo("{\"b\": [1, -2.5, 1000.0, true, false, null], \"a\": \"x\\né\\\"\", \"big\": 12345678901234567890}");
    }

    @Test
    void rejectsWhatIsNotOneJsonValue() {
        for (String bad : List.of("", "{", "{\"a\" 1}", "[1,]", "{} x", "'a'", "01x", "\"\\q\"")) {
            assertThatThrownBy(() -> JsonReader.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
