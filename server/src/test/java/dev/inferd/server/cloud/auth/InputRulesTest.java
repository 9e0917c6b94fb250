package dev.inferd.server.cloud.auth;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rules the dashboard, the admin API and the CLI share, each refusal a message that says what is allowed. */
class InputRulesTest {

    private static long millis(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    @Test
    void anExpiryDateIsValidThroughItsLastDayInUtc() {
        assertThat(InputRules.expiry("2027-01-31")).isEqualTo(millis("2027-02-01T00:00:00Z"));
        assertThat(InputRules.expiry(" 2027-01-31 ")).isEqualTo(millis("2027-02-01T00:00:00Z"));
        assertThat(InputRules.expiry("2027-01-31T12:00:00Z")).isEqualTo(millis("2027-01-31T12:00:00Z"));
        assertThat(InputRules.expiry("1801958400000")).isEqualTo(1801958400000L);
        assertThat(InputRules.expiry("")).isNull();
        assertThat(InputRules.expiry(null)).isNull();

        long lateToday = millis("2026-11-29T23:59:00Z");
        assertThat(InputRules.requireFutureExpiry(InputRules.expiry("2026-11-29"), lateToday)).isEqualTo(millis("2026-11-30T00:00:00Z"));
        assertThatThrownBy(() -> InputRules.requireFutureExpiry(InputRules.expiry("2026-11-28"), lateToday))
                .hasMessageContaining("already past").hasMessageContaining("valid through its last day, UTC");
        assertThatThrownBy(() -> InputRules.requireFutureExpiry(millis("2126-11-30T00:00:00Z"), lateToday))
                .hasMessageContaining("at most 100 years ahead");
    }

    @Test
    void datesAndInstantsThatAreNoneAreRefusedWithTheFormsAllowed() {
        for (String bad : new String[]{"garbage", "2027-02-30", "2026-13-01", "1969-12-31", "+999999999-12-31T23:59:59Z",
                "-999999999-01-01T00:00:00Z", "99999999999999999999", "10000-01-01T00:00:00Z", "2027-01-01T25:00:00Z", "-1"}) {
            assertThatThrownBy(() -> InputRules.expiry(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("an expiry is");
        }
        assertThatThrownBy(() -> InputRules.expiry("2027-02-30")).hasMessageContaining("a real day of the calendar");
        assertThatThrownBy(() -> InputRules.periodStart("a\u0000b")).hasMessageContaining("a?b");
        assertThat(InputRules.periodStart("2026-11-01")).isEqualTo(millis("2026-11-01T00:00:00Z"));
        assertThat(InputRules.periodEnd("2026-11-02")).isEqualTo(millis("2026-11-02T00:00:00Z"));
        assertThat(InputRules.date("the range's start", "2026-11-01")).isEqualTo(LocalDate.of(2026, 11, 1));
    }

    @Test
    void gracePeriodsAreZeroToAYear() {
        assertThat(InputRules.grace(Duration.ZERO)).isEqualTo(Duration.ZERO);
        assertThat(InputRules.grace(Duration.ofDays(365))).isEqualTo(Duration.ofDays(365));
        for (Duration bad : new Duration[]{Duration.ofDays(365).plusSeconds(1), Duration.ofSeconds(-1),
                Duration.ofHours(2562047788015215L), Duration.ofSeconds(Long.MAX_VALUE), Duration.ofHours(99999999999999L)}) {
            assertThatThrownBy(() -> InputRules.grace(bad)).as(bad.toString()).hasMessage("a grace period is 0 to 365 days (8760 hours)");
        }
        assertThat(InputRules.integer("a grace period", "24", 0, 8760, "hours")).isEqualTo(24);
        assertThatThrownBy(() -> InputRules.integer("a grace period", "99999999999999", 0, 8760, "hours"))
                .hasMessage("a grace period is a whole number from 0 to 8760 hours");
        assertThatThrownBy(() -> InputRules.integer("a grace period", "99999999999999999999999", 0, 8760, "hours"))
                .hasMessage("a grace period is a whole number from 0 to 8760 hours");
    }

    @Test
    void rateLimitsAreOneToAHundredThousand() {
        assertThat(InputRules.rateLimit((Integer) null)).isNull();
        assertThat(InputRules.rateLimit("")).isNull();
        assertThat(InputRules.rateLimit("100000")).isEqualTo(100_000);
        for (String bad : new String[]{"0", "-1", "100001", "abc", "1.5", "2147483648"}) {
            assertThatThrownBy(() -> InputRules.rateLimit(bad)).as(bad).hasMessageStartingWith("a rate limit is a whole number from 1 to 100000");
        }
        assertThatThrownBy(() -> InputRules.rateLimit(0)).hasMessage("a rate limit is 1 to 100000 requests per second");
    }

    @Test
    void textsFitTheirColumnsOnBothDatabases() {
        assertThat(InputRules.email("Ana@Alpha.example")).isEqualTo("ana@alpha.example");
        assertThatThrownBy(() -> InputRules.email("a".repeat(400) + "@example.com"))
                .hasMessage("an e-mail address may have at most 254 characters");
        assertThatThrownBy(() -> InputRules.email("a\u0000@b")).hasMessageContaining("not an e-mail address: a?@b");
        assertThatThrownBy(() -> InputRules.email("no-at-sign")).hasMessageContaining("not an e-mail address");
        assertThatThrownBy(() -> InputRules.keyName("x".repeat(201))).hasMessageContaining("at most 200 characters");
        assertThatThrownBy(() -> InputRules.keyName("nul\u0000")).hasMessageContaining("control characters");
        assertThatThrownBy(() -> InputRules.keyName("half \ud800")).hasMessageContaining("control characters");
        assertThat(InputRules.keyName("emoji 😀")).isEqualTo("emoji 😀");
        assertThatThrownBy(() -> InputRules.accountName("-x")).hasMessageContaining("1 to 100 letters");
        assertThatThrownBy(() -> InputRules.accountName("a".repeat(101))).hasMessageContaining("1 to 100 letters");
        assertThat(InputRules.isWellFormed("a\u0000")).isFalse();
        assertThat(InputRules.isWellFormed("\udc00")).isFalse();
    }

    @Test
    void aKeySpecChecksItsNameScopesAndRateLimit() {
        assertThatThrownBy(() -> new KeySpec("k", new dev.inferd.server.store.KeyScopes(java.util.Collections.nCopies(101, "m"),
                java.util.List.of()), null, null)).hasMessage("at most 100 models");
        assertThatThrownBy(() -> new KeySpec("k", null, null, 100_001)).hasMessageContaining("1 to 100000");
    }
}
