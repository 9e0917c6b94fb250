package dev.inferd.engine.tokenizer;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ByteUnicodeTest {

    @Test
    void mapsSpaceNewlineAndPrintableBytesLikeGpt2() {
        assertThat(ByteUnicode.encode(" ")).isEqualTo("Ġ");
        assertThat(ByteUnicode.encode("\n")).isEqualTo("Ċ");
        assertThat(ByteUnicode.encode("Hi!")).isEqualTo("Hi!");
        assertThat(ByteUnicode.encode("é")).isEqualTo("Ã©");
    }

    @Test
    void everyByteHasItsOwnCharacterAndRoundTrips() {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) all[i] = (byte) i;
        String encoded = ByteUnicode.encode(all);
        assertThat(encoded.chars().distinct().count()).isEqualTo(256);
        assertThat(encoded.chars().allMatch(c -> !Character.isWhitespace(c) && !Character.isISOControl(c))).isTrue();
        assertThat(ByteUnicode.decode(encoded)).isEqualTo(all);
        assertThat(ByteUnicode.decode(ByteUnicode.encode("naïve 🦙\t"))).isEqualTo("naïve 🦙\t".getBytes(StandardCharsets.UTF_8));
    }
}
