package io.backpressure.core;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The active queues of {@link NestedBuckets} by (last seen, touch order), the order idle eviction
 * takes them in: a binary min-heap whose elements record their own position in it, in front of
 * which two <i>lanes</i> take the elements that arrive in order.
 *
 * <p>Every admission takes its queue out and puts it back with a new last-seen time and touch
 * order, and so does a release that ends the queue's last call. Those orders mostly grow: a touch
 * is seen now with the newest touch order, a release marks its queue as seen one fixed interval
 * before now (see "Hand-off on release" in {@link NestedBuckets}). So an element goes to the end of
 * the first lane whose last element it does not precede (a doubly linked list through the elements:
 * {@code O(1)} to add, to take out and to read the least), and only one that precedes both lanes'
 * last elements goes to the heap ({@code O(log n)} sift steps). Each lane stays sorted, so the
 * least element is the least of the two lanes' first and the heap's root. A {@code TreeSet} would
 * allocate a tree entry at each insertion; this allocates nothing once the heap's array has grown
 * to the number of active queues. It offers the operations eviction needs ({@link #first}, {@link
 * #pollFirst}) and no iteration: the set of queues idle at a given time, and the least of them, are
 * the same in any structure that keeps the order, and eviction sorts the idle ones by touch order
 * itself.
 *
 * <p>An element's ordering must not change while it is in the order unless {@link #reorder} is
 * called for it at once. Not thread-safe: used under its gate's lock.
 */
final class SeenHeap<E extends SeenHeap.Member> {
  /** How many lanes take the elements that arrive in order. */
  private static final int LANES = 2;

  /** {@link Member#place} of an element in no order. */
  private static final int NOWHERE = -1;

  /** {@link Member#place} of an element in the heap; 0 to {@code LANES − 1} is its lane. */
  private static final int IN_HEAP = LANES;

  /**
   * What the order needs of an element: where it is (a lane, the heap, or nowhere), its position in
   * the heap, and its neighbours in its lane.
   */
  abstract static class Member {
    private int place = NOWHERE;
    private int heapIndex = -1;
    private @Nullable Member before;
    private @Nullable Member after;
  }

  private final Comparator<? super E> order;
  private Member[] heap = new Member[16];
  private int heapSize;
  private final @Nullable Member[] firsts = new Member[LANES];
  private final @Nullable Member[] lasts = new Member[LANES];
  private int size;

  SeenHeap(Comparator<? super E> order) {
    this.order = order;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The least element; the order must not be empty. */
  E first() {
    return element(least());
  }

  /** Removes and returns the least element, or null when the order is empty. */
  @Nullable E pollFirst() {
    if (size == 0) {
      return null;
    }
    Member least = least();
    takeOut(least);
    return element(least);
  }

  /** Adds {@code e}, which must not be in an order already. */
  void add(E e) {
    Member added = e;
    if (added.place != NOWHERE) {
      throw new IllegalStateException("already in a heap");
    }
    putIn(added);
  }

  /** Removes {@code e}; returns false when it was not in the order. */
  boolean remove(E e) {
    Member removed = e;
    if (!holds(removed)) {
      return false;
    }
    takeOut(removed);
    return true;
  }

  /**
   * Restores the order after the ordering of {@code e}, which is in this order, changed: an element
   * of a lane still between its neighbours there stays where it is; any other is taken out and put
   * back (into a lane if it now comes after one's end), {@code O(log n)} sift steps at most.
   */
  void reorder(E e) {
    Member moved = e;
    if (!holds(moved)) {
      throw new IllegalStateException("not in this heap");
    }
    if (moved.place != IN_HEAP
        && (moved.before == null || compare(moved.before, moved) <= 0)
        && (moved.after == null || compare(moved, moved.after) <= 0)) {
      return;
    }
    takeOut(moved);
    putIn(moved);
  }

  private boolean holds(Member e) {
    if (e.place == IN_HEAP) {
      return e.heapIndex >= 0 && e.heapIndex < heapSize && heap[e.heapIndex] == e;
    }
    return e.place != NOWHERE && (e.before != null || firsts[e.place] == e);
  }

  /** The least element of a non-empty order: the least of the lanes' first and the heap's root. */
  private Member least() {
    Member least = heapSize > 0 ? heap[0] : null;
    for (int lane = 0; lane < LANES; lane++) {
      Member first = firsts[lane];
      if (first != null && (least == null || compare(first, least) < 0)) {
        least = first;
      }
    }
    return Objects.requireNonNull(least, "empty");
  }

  /**
   * Appends {@code e} to the first lane it does not precede the end of, else adds it to the heap.
   */
  private void putIn(Member e) {
    size++;
    for (int lane = 0; lane < LANES; lane++) {
      Member last = lasts[lane];
      if (last == null || compare(last, e) <= 0) {
        e.place = lane;
        e.before = last;
        e.after = null;
        if (last == null) {
          firsts[lane] = e;
        } else {
          last.after = e;
        }
        lasts[lane] = e;
        return;
      }
    }
    e.place = IN_HEAP;
    if (heapSize == heap.length) {
      heap = Arrays.copyOf(heap, heapSize * 2);
    }
    heapSize++;
    place(e, heapSize - 1);
    siftUp(heapSize - 1);
  }

  private void takeOut(Member e) {
    size--;
    if (e.place == IN_HEAP) {
      removeAt(e.heapIndex);
    } else {
      Member before = e.before;
      Member after = e.after;
      if (before == null) {
        firsts[e.place] = after;
      } else {
        before.after = after;
      }
      if (after == null) {
        lasts[e.place] = before;
      } else {
        after.before = before;
      }
      e.before = null;
      e.after = null;
    }
    e.place = NOWHERE;
  }

  private void removeAt(int i) {
    Member gone = heap[i];
    gone.heapIndex = -1;
    heapSize--;
    if (i == heapSize) {
      heap[heapSize] = null;
      return;
    }
    Member last = heap[heapSize];
    heap[heapSize] = null;
    heap[i] = last;
    last.heapIndex = i;
    siftDown(i);
    if (heap[i] == last) {
      siftUp(i);
    }
  }

  private void siftUp(int i) {
    Member moving = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (compare(moving, heap[parent]) >= 0) {
        break;
      }
      place(heap[parent], i);
      i = parent;
    }
    place(moving, i);
  }

  private void siftDown(int i) {
    Member moving = heap[i];
    int half = heapSize >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < heapSize && compare(heap[right], heap[child]) < 0) {
        child = right;
      }
      if (compare(moving, heap[child]) <= 0) {
        break;
      }
      place(heap[child], i);
      i = child;
    }
    place(moving, i);
  }

  private void place(Member e, int i) {
    heap[i] = e;
    e.heapIndex = i;
  }

  @SuppressWarnings("unchecked") // only elements of type E are ever added
  private int compare(Member a, Member b) {
    return order.compare((E) a, (E) b);
  }

  @SuppressWarnings("unchecked") // only elements of type E are ever added
  private E element(Member e) {
    return (E) e;
  }
}
