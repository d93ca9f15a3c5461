package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibraryLogsTest {

  @Test
  void theSummaryCountsWarningsAndErrorsOfThisProcessAndTheWorkers(@TempDir Path dir)
      throws Exception {
    LibraryLogs logs = LibraryLogs.toFolder(dir);
    assertThat(logs.quiet()).isTrue();
    assertThat(logs.summary()).as("nothing logged yet").isNull();
    Files.writeString(
        dir.resolve(LibraryLogs.FILE),
        """
        08:00:00.001 [main] INFO io.temporal.internal.worker.Poller - started
        08:00:00.002 [pool-1] WARN io.backpressure.core.FailOpenGate - shared state unavailable
        08:00:00.003 [grpc] WARN io.grpc.netty.NettyClientHandler - WARN in a message counts once
        08:00:00.004 [main] ERROR io.lettuce.core.RedisClient - refused
        """);
    Files.writeString(
        dir.resolve(LibraryLogs.WORKERS_FILE),
        """
        [main] WARN io.temporal.worker.Worker - slow poll
        Dec 01, 2026 8:00:00 AM io.grpc.internal.ManagedChannelImpl shutdown
        WARNING: channel not shut down
        SEVERE: orphaned channel
        """);
    assertThat(logs.summary())
        .startsWith("library logs: 4 warnings, 2 errors in ")
        .contains(dir.resolve(LibraryLogs.FILE).toString());
    assertThat(logs.workersFile()).isEqualTo(dir.resolve(LibraryLogs.WORKERS_FILE));
  }

  @Test
  void verboseLeavesEverythingOnTheTerminal() {
    LibraryLogs logs = LibraryLogs.verbose();
    assertThat(logs.quiet()).isFalse();
    assertThat(logs.workersFile()).isNull();
    assertThat(logs.summary()).isNull();
  }
}
