package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SeenHeapTest {
  private static final class Item extends SeenHeap.Member {
    long seen;
    final long seq;

    Item(long seen, long seq) {
      this.seen = seen;
      this.seq = seq;
    }
  }

  private static final Comparator<Item> ORDER =
      Comparator.<Item>comparingLong(i -> i.seen).thenComparingLong(i -> i.seq);

  @Test
  void takesOutWhatATreeSetWouldInTheSameOrder_withTouchesByRemovalOrInPlace() {
    Random random = new Random(17);
    SeenHeap<Item> heap = new SeenHeap<>(ORDER);
    TreeSet<Item> tree = new TreeSet<>(ORDER);
    List<Item> in = new ArrayList<>();
    long seq = 0;
    for (int step = 0; step < 20_000; step++) {
      int action = random.nextInt(5);
      if (action == 0 || in.isEmpty()) {
        Item item = new Item(random.nextInt(1_000), seq++);
        heap.add(item);
        tree.add(item);
        in.add(item);
      } else if (action == 1) {
        // A touch: out, a new time, back in.
        Item item = in.get(random.nextInt(in.size()));
        assertThat(heap.remove(item)).isTrue();
        tree.remove(item);
        item.seen = random.nextInt(1_000);
        heap.add(item);
        tree.add(item);
      } else if (action == 4) {
        // A touch re-sifted in place: a new time, earlier or later.
        Item item = in.get(random.nextInt(in.size()));
        tree.remove(item);
        item.seen = random.nextInt(1_000);
        heap.reorder(item);
        tree.add(item);
      } else if (action == 2) {
        Item least = heap.pollFirst();
        assertThat(least).isSameAs(tree.pollFirst());
        in.remove(least);
      } else {
        Item item = in.remove(random.nextInt(in.size()));
        assertThat(heap.remove(item)).isTrue();
        assertThat(heap.remove(item)).isFalse();
        tree.remove(item);
      }
      assertThat(heap.isEmpty()).isEqualTo(tree.isEmpty());
      if (!tree.isEmpty()) {
        assertThat(heap.first()).isSameAs(tree.first());
      }
    }
    while (!tree.isEmpty()) {
      assertThat(heap.pollFirst()).isSameAs(tree.pollFirst());
    }
    assertThat(heap.pollFirst()).isNull();
    Item outside = new Item(0, seq);
    assertThatThrownBy(() -> heap.reorder(outside)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void takesOutWhatATreeSetWouldInTheSameOrder_withTouchesAndReleasesMostlyInOrder() {
    // The gate's pattern: a touch is seen now (the end of a lane), a release one fixed interval
    // before now (the end of the other), a deferral until later (out of order for both lanes once
    // later touches follow, so partly in the heap).
    Random random = new Random(29);
    SeenHeap<Item> heap = new SeenHeap<>(ORDER);
    TreeSet<Item> tree = new TreeSet<>(ORDER);
    List<Item> in = new ArrayList<>();
    long seq = 0;
    long now = 0;
    for (int step = 0; step < 20_000; step++) {
      now += random.nextInt(3);
      int action = random.nextInt(10);
      if (action == 0 || in.isEmpty()) {
        Item item = new Item(now, seq++);
        heap.add(item);
        tree.add(item);
        in.add(item);
        continue;
      }
      if (action == 9) {
        Item least = heap.pollFirst();
        assertThat(least).isSameAs(tree.pollFirst());
        in.remove(least);
        continue;
      }
      Item item = in.get(random.nextInt(in.size()));
      tree.remove(item);
      if (action < 5) {
        item.seen = now;
      } else if (action < 8) {
        item.seen = now - 50;
      } else {
        item.seen = now + random.nextInt(100);
      }
      heap.reorder(item);
      tree.add(item);
      assertThat(heap.first()).isSameAs(tree.first());
    }
    while (!tree.isEmpty()) {
      assertThat(heap.pollFirst()).isSameAs(tree.pollFirst());
    }
    assertThat(heap.isEmpty()).isTrue();
  }
}
