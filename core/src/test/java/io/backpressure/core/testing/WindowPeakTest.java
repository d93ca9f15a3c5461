package io.backpressure.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class WindowPeakTest {
  record Event(long at, double amount) {}

  @Test
  void findsTheHeaviestWindowOverEveryAlignment() {
    // Windows of 10: [0, 10) holds 1 + 2 + 4, [5, 15) holds 2 + 4 + 8, [12, 22) holds 8.
    List<Event> events =
        List.of(new Event(0, 1), new Event(5, 2), new Event(9, 4), new Event(12, 8));
    assertThat(WindowPeak.max(events, Event::at, Event::amount, 10)).isEqualTo(14);
  }

  @Test
  void eventsOneWindowApartFallInDifferentWindows() {
    assertThat(WindowPeak.maxCount(List.of(0L, 10L, 20L), 10)).isEqualTo(1);
    assertThat(WindowPeak.maxCount(List.of(0L, 9L, 18L), 10)).isEqualTo(2);
    assertThat(WindowPeak.maxCount(List.of(), 10)).isZero();
  }

  @Test
  void rejectsAnEmptyWindow() {
    assertThatThrownBy(() -> WindowPeak.maxCount(List.of(1L), 0)).hasMessageContaining("window");
  }
}
