package dev.inferd.server.cloud.workers;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WorkerReportTest {

    @Test
    void aReportReadsBackAsItWasWritten() {
        var report = new WorkerReport(12, 40, 8, 2875, true);
        assertThat(WorkerReport.parse(report.encode())).contains(report);
        assertThat(WorkerReport.parse(" p=1;c=2;k=0;a=0;x=0;later=5 ")).contains(new WorkerReport(1, 2, 0, 0, false));
    }

    @Test
    void anythingElseIsNoReport() {
        for (String text : new String[]{null, "", "p=1", "p=1;c=2;k=0;a=0;x=zero", "p=-1;c=2;k=0;a=0;x=0",
                "p=99999999999;c=2;k=0;a=0;x=0", "{\"usage\":1}"}) {
            assertThat(WorkerReport.parse(text)).as(String.valueOf(text)).isEmpty();
        }
    }
}
