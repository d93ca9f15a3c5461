package io.backpressure.core;

import io.backpressure.core.spi.DerivedPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The admission rule: three layers of token buckets decided in one step. Not thread-safe; {@link
 * InMemoryGate} serialises calls, and the Redis backend runs the same arithmetic in one Lua script.
 *
 * <h2>What is decided, and why in layers</h2>
 *
 * A target caps several dimensions {@code d} (requests, tokens) at {@code C_d} units per second. A
 * call of tenant {@code t} in priority class {@code k} costs {@code c_d} of each. The gate must (1)
 * never let the admitted cost exceed the cap, (2) give every queue {@code q = (t, k)} its share in
 * proportion to {@code w_t · ω_k} when several are backlogged, by weighted dominant-resource
 * fairness (DRF), (3) waste nothing: what a class or tenant does not use goes to the others, and
 * (4) hold these however the others behave: open-loop floods, hundreds of tenants with one call
 * each, callers with deadlines. Each concern is one layer:
 *
 * <ul>
 *   <li><b>L1, the global cap</b>: one bucket per dimension, refilled at {@code r_d = C_d} units/s
 *       and holding at most the burst {@code B_d}. A bucket of rate {@code r} and capacity {@code
 *       B} can never release more than {@code r·T + B} in any interval of length {@code T}: this
 *       layer alone proves cap respect, whatever the other layers do. With a safe window of the
 *       provider's period {@code P}, a {@link SlidingWindow} of the last {@code P} of admissions
 *       also has to hold the cost within {@code C_d·P}, so no window of length {@code P}, however
 *       aligned, sees more than the provider allows.
 *   <li><b>L2, class shares</b>: one bucket per class and dimension. An active class (one with an
 *       active queue) is entitled to {@code nominal_k,d = ω_k·W_k / Σ_j ω_j·W_j · r_d}, where
 *       {@code W_k} is the weight sum of its active queues: every queue counts {@code w_t · ω_k},
 *       so a class of 160 tenants is not squeezed into the share of a class of 40 (with the same
 *       number of tenants per class this is the paper's {@code ω_k / Σω}). A class that leaves its
 *       bucket at least half full, and whose own buckets (L2, or its queues' L3) deferred none of
 *       its calls within the share horizon {@code H}, is <i>satisfied</i>: its unused rate, {@code
 *       nominal − use} ({@code use} its measured admitted rate), is handed to the other classes in
 *       proportion to {@code ω_k·W_k}. A deferral caused by L1 (or the safe window) does not count:
 *       the lack was caused by others, and counting it kept an under-share class's share from being
 *       handed down while the cap idled. <b>A class that uses its share and finds the shared
 *       buckets short</b> is the exception: one that already uses at least its nominal rate of the
 *       short dimension lacks capacity, not others, and counts as deferred (a class that was not
 *       active when the step sized the shares has no nominal rate and does not count). (Without it,
 *       a batch that borrows under a safe window filled its L2 bucket while the window held it
 *       back, passed for satisfied, fell to its nominal rate for moments many times a second and
 *       lined its calls at that pace; on interactive-under-batch the batch's effective rate
 *       averaged 9 555 tokens/s where the interactive class left 10 490, and the interactive calls
 *       met the gaps' echo in the window a second later: their p95 189 ms against 150 ms.) The L2
 *       bucket refills at {@code eff_k,d} (nominal plus what it is handed) and holds {@code
 *       max(B_d, nominal_k,d · H)}. In strict mode ({@link PriorityMode#STRICT}) {@code eff} is
 *       instead what the classes above leave: everything for the highest, nothing below a hungry
 *       class, the rate not used by a satisfied one.
 *   <li><b>L3, tenant shares</b>: one bucket per active queue in units of dominant share. A call's
 *       dominant share is {@code σ = max_d c_d / r_d}, in seconds of the whole cap. If every hungry
 *       queue of class {@code k} receives dominant share at rate {@code w_t · x}, dimension {@code
 *       d} is consumed at {@code x · D_k,d} units/s, where {@code D_k,d = Σ w_t · c_d(t)/σ(t)} over
 *       those queues. The largest {@code x} that fits every dimension is the DRF equalisation rate
 *       <pre>    X*_k = min_d (eff_k,d − U_k,d) / D_k,d</pre>
 *       and queue {@code q} refills at {@code ρ_q = w_t · X*_k} share/s. {@code U_k,d} is what the
 *       class's <i>capped</i> queues (those banking at least half their L3 capacity, with no call
 *       waiting for its turn) use; only the others enter {@code D_k,d}. This is DRF's progressive
 *       filling with demand caps in closed form; with one binding dimension it is weighted fair
 *       queuing. A queue's bucket holds at most {@code max(σ, ρ_q · H)}.
 * </ul>
 *
 * <p>{@code D_k,d}, {@code U_k,d}, {@code W_k} and the class weight sums are running sums: each
 * queue remembers what it contributed and replaces it when it is next touched, and idle queues
 * leave in the order they were last seen (a deferred call keeps its queue seen until its turn). One
 * admission therefore costs O(classes × dimensions), whatever the number of tenants and the depth
 * of the backlog (idle eviction is amortised O(1) per admission; the Redis twin indexes the queues
 * by last-seen time in a sorted set, this class in {@link SeenHeap}, so finding the idle ones is
 * O(log queues)). Usage rates are exponentially weighted averages with time constant {@code H}.
 *
 * <p><b>Hand-off on release.</b> Each queue counts its outstanding calls: admitted and not yet
 * released, or deferred with a booking. When the count falls to zero (its last call released, or
 * its last waiting call expired) the queue is marked as last seen one share horizon {@code H} short
 * of the idle TTL ago, so the idle eviction takes it out of its class's sums {@code H} after that
 * release unless it calls again: a tenant or class that has finished hands its share to the others
 * within {@code H} (1 s by default) whatever the idle TTL, while one whose calls come less than
 * {@code H} apart keeps its share between them. A queue that leaves keeps nothing, but after {@code
 * H} idle its L3 bucket would have refilled to its capacity ({@code ρ_q · H}) anyway, so releasing
 * and calling again is no way to a fuller bucket. A grant never released (or a booking never
 * redeemed) keeps its queue for the idle TTL, as before. The count is one integer per queue,
 * updated in O(1) per admission and release; moving the queue in the last-seen order is O(log
 * queues), as every admission already does.
 *
 * <h2>One step: each call's Δ is its turn in a weighted fair schedule</h2>
 *
 * Refill L1 and L2 by the elapsed time; refill the queue's L3. The call pays its share {@code σ}
 * into L3 at its first attempt, even when it is not admitted: L3 may go into debt, and the debt is
 * the queue's place in the schedule, a virtual finish time counted in shares (start-time fair
 * queuing with the queue's refill as its clock). The call's <i>turn</i> is when its queue has
 * earned back its debt: {@code (debt − σ) / ((1 + TURN_LEAD) · ρ_q) + σ / ρ_q} from now. The calls
 * ahead of it are expected to drain a little faster than the current rate, because rates move
 * (classes come and go) and a promise made against a deep backlog at a low rate would leave the cap
 * idle when the rate rose; a call that comes back a little early is caught by the line below. A
 * queue's state is O(1) however many of its calls wait: a debt, not a list.
 *
 * <p>Admit iff every L1 and L2 bucket (and safe window) holds the cost and the call's turn has
 * come; then debit L1 and L2. A class that <i>borrows</i> (its effective rate is above its nominal
 * share) is <i>paced</i>, unless the call's queue is within its share, so that under-share classes
 * and queues find capacity free within about one call's time however full the borrowers keep the
 * cap:
 *
 * <ul>
 *   <li>it gets no burst from L1: its call is admitted only while L1 lacks at most {@link
 *       #BORROWER_BURST_CALLS} calls like it of being full, so borrowers are admitted at most at
 *       L1's rate, spaced, and the safe window frees what they took spaced as well;
 *   <li>in the safe window it may take the last room only when room for one more call like its own
 *       (its cost, and at least {@link #HEADROOM} of the largest cost) will be free again within
 *       {@link #ROOM_AHEAD} of the time L1 takes to refill that much.
 * </ul>
 *
 * (Before, a borrower left room for one more call free in the safe window at all times. That room
 * idles whenever no under-share call is there, and it is one call in {@code C·P}: at a quarter of
 * the open-loop flood's cap, 15 calls in the window, the flood used 88.7 % of the cap, paced 91.3
 * %; interactive-under-batch with the batch's prompts at 800 tokens used 88.7 % of the token cap,
 * paced 91.2 %, its interactive p95 153 ms against 148 ms. With neither the standing room nor the
 * pacing the window frees in lumps, as it was filled, and an interactive call waits for the next
 * lump: interactive-under-batch P1 p95 310 ms against 150 ms, at 97.0 % of the token cap. The
 * evaluation's commands, {@code --configs bp --repeats 3 --seed 1}.) Otherwise answer {@code
 * DEFER(Δ)} with a booking that remembers the turn; the retry presents the booking instead of
 * paying again. A call that finds a shared bucket short lines up behind a <i>tail</i> (the time the
 * last call deferred there was told to come back) of its own class: the class's tail, spaced at
 * {@code c_d / eff_k,d}, for queues using their share; the class's light tail, spaced at {@code c_d
 * / r_d}, for a queue <i>within</i> its share (it would still bank half its capacity after paying,
 * its own L3 has not deferred it within {@code H}, and it is not <i>paced by the lines</i>) that
 * found only L1 short. Classes never line up behind one another, and a queue within its share never
 * behind the calls of queues using theirs. A booked call back before its turn keeps its place; for
 * one back at or after it that finds its capacity gone (a late wake-up), see the overdue calls
 * below. A cost above a dimension's burst (or its safe-window allowance) can never fit and is
 * rejected at once. A queue or class seen for the first time starts with full buckets, inside the
 * same step, so concurrent first calls cannot over-admit.
 *
 * <p><b>Paced by the lines.</b> Under a safe window a saturating queue's L3 banks: the lines, not
 * L3, pace it, so its calls are admitted at about the rate L3 refills and it would pass for a queue
 * within its share. Every class's saturating queues then lined up at the light tail, spaced at the
 * whole cap's pace, and three classes' light lines promised the window three times over: on the
 * paper's token-bound workload two of every three calls that came back at their slot found it
 * taken. A queue that a line deferred within {@code H} while its admitted rate ({@code max_d use_d
 * / r_d}) was at least half its equal split of the class ({@code w_t · min_d eff_k,d / Σ D_k,d})
 * therefore counts as using its share: it lines up at its class's tail, spaced at the class's rate,
 * and the class lines together promise the cap once. A queue far below its share (an interactive
 * tenant whose call met a burst of its own) stays within it. The state is one time per queue
 * ({@code linedAt}, when a line last deferred one of its calls).
 *
 * <p><b>Promises across classes: overdue calls.</b> Lines are per class, so a slot promised in one
 * class's line is invisible to the calls of the others: a timer fires a little late, and in between
 * a call of another class finds the bucket (or the safe window) holding enough and takes it. The
 * late call then lines up again at the back of its class's line, a whole line's length later, and
 * it can happen again: under three saturating classes this repeated bounce, not the share, set the
 * top class's p95. A call that comes back at or after a slot a line gave it and finds its capacity
 * taken is therefore <i>overdue</i>: up to {@link #PLACES_KEPT} times it keeps its place, not
 * behind its class's tail, and waits until the shared buckets (and window) hold it and, if its
 * queue uses its share, what the overdue calls of its own class were promised before it; bounced
 * once more, it lines up at the back as before, and so does a borrowing class's call whose queue is
 * in debt (below). (Waiting for its own cost alone, every overdue call of a class computed the same
 * instant: on token-bound most admissions between a call's bounce and its return were other overdue
 * calls, and the 7 % of top-class calls bounced twice, sent a whole line back, were its p95: 2056
 * ms, against 1838 ms queued behind the earlier promises with two places kept.) Until it is back
 * its cost counts in its class's {@code overdue} level, per dimension. Every call of another
 * class's queue using its share must leave the overdue levels of the other classes free in L1 and
 * the safe window, besides its own cost, so the promised capacity waits for the caller it was
 * promised to. Three exceptions keep the rest of the rule whole: a queue within its share owes
 * nothing (it is admitted at once however many calls of others are overdue), an overdue call owes
 * no other overdue call (they would all wait for one another), and a class that borrows is owed
 * nothing (what it was promised was handed down by classes that may take it back at once). An
 * overdue call that never comes back is forgotten: the levels decay with time constant {@code H}.
 * The state is one number per class and dimension, two flags and a count per booking; the step
 * costs O(classes × dimensions) more.
 *
 * <p><b>A borrower keeps its places while its queue is not in debt.</b> A borrowing class's line is
 * spaced at a rate that counts on its lenders' average use, while their calls come when they come:
 * where one of them took a lined slot, the lined call sent to the back of its line left the
 * capacity after that slot unclaimed. On interactive-under-batch the batch's line promised 10 473
 * tokens/s and got 9 410, and the token cap was 91.9 % used; with a lined call of a borrowing class
 * keeping its place (up to {@link #PLACES_KEPT} times) while its queue's L3 is not in debt after
 * the call has paid, 93.0–93.4 % over six seeds, the interactive p95 unchanged. A queue in debt is
 * paced by its own turns, and keeping its places there made each call of an open-loop flood wait
 * for capacity that other lined calls were promised, once more per loss: 2.4 deferrals per flood
 * call in the conformance suite's bounded-work property against 1.9 (bound 2). A borrower's overdue
 * calls are still owed nothing by the other classes. On the paper's workloads the top class's p95
 * fell on token-bound (1776 → 1544 ms), request-bound, noisy-estimates and both reservation files,
 * and rose on cross-priority (520 → 631 ms: its lower classes borrow for moments, and their kept
 * calls take capacity the top class's lined calls come back for).
 *
 * <p><b>Single-call queues wait for their own finish time.</b> A tenant with one call in flight
 * pays every call from a full L3 bucket, which refilled while its last call waited, so its turn is
 * always now; lined up at its class's tail, each such tenant got one call per pass of the line,
 * whatever its weight and cost, and where the line was long (hundreds of such tenants, estimates
 * short of use) the line's order, not the tenants' turns, set their rates. So a fresh call whose
 * queue has no other call outstanding, whose turn is now, whose queue is not within its share, and
 * which finds a shared bucket short, is told to come back at its own finish time, {@code σ / ρ_q}
 * from now, when its queue will have earned the share it has just paid (or later, if the short
 * bucket needs longer): weighted fair queuing's finish time, with the queue's rate as its clock and
 * no state beyond the queue's. It does not extend its class's tail and keeps no place, so the
 * promises the line made stand; back at that time and finding the bucket short, it lines up as any
 * call does. On weighted-many-tenants (300 such tenants, weights 1, 2 and 4, prompts and
 * completions mixed) Jain 0.959 became 0.974, at 94.1 % of the token cap against 91.5 %, with 2.78
 * deferrals per OK call against 2.33; on the paper's workloads only the deferrals per OK call
 * moved, by at most 0.02 (eval/README.md, "Weights and costs at platform scale"). Applied to every
 * fresh call that pays from a full bucket, the calls sent ahead of the line took capacity the line
 * had promised to others (token-bound's top-class p95 1 531 → 2 934 ms); while a 429 still held its
 * dimension until the provider's reset, the same change for single-call queues cost a sliding
 * window's token cap 89.4 → 85.1 %.
 *
 * <p><b>Deadlines.</b> A call with a wait limit (its own {@link AdmissionRequest#maxWait()}, or its
 * class's {@code max_wait}) whose Δ would exceed it is answered {@code Expired} at once: it pays
 * nothing (a first attempt's share is not taken; a booked call's share goes back to its queue, and
 * its slot in its class's line is taken off the tail), so the calls behind it move up. The gate
 * also reports, per class, how long the oldest call still waiting has waited since its first
 * attempt ({@link GateLevels#queueAges()}).
 *
 * <p>On release, the difference between debited and actual cost is returned to (or taken from) L1,
 * L2 and the safe window, L3 gets back the difference between the share paid and the share the call
 * really had, and the usage averages follow; levels may go negative when a call used more than it
 * reserved, which delays the next admissions exactly as long as the overshoot needs to refill.
 *
 * <h2>Estimates</h2>
 *
 * Before the reply, the token cost is an estimate (typically the prompt). Each queue learns how far
 * its releases exceeded their estimates, and a call is debited {@code estimate + that correction}
 * (never above the largest cost that fits), so a tenant whose completions run long is charged
 * closer to what it will use before the provider counts it. The correction is the mean of the
 * releases seen so far until there are {@link #LEARNING_RELEASES} of them, then an exponential
 * average of weight {@link #CORRECTION_WEIGHT}: the first release is taken at once, not a fifth of
 * it. Each class learns the same way from every release in the class, and a queue that has seen no
 * release of its own is charged its class's correction as it stands, not a copy taken when the
 * queue was created: the queues of a fresh gate all start before anything is learnt, and with one
 * call in flight each (many tenants) a queue sees a release every few seconds, so copies of the
 * cold class's 0, learnt a fifth at a time, kept the early queues under-charged for most of a run
 * (60–90 s to reach the mean completion on many-tenants).
 *
 * <p>Only a call that ran teaches ({@link #ran}): one released with none of a dimension it was
 * estimated to use (refused by the provider, which does not count a 429's tokens, failed before an
 * answer, or handed back unsent) is reconciled like any other, but no correction learns from it and
 * its release is not counted among the queue's or the class's. Learnt as calls that use nothing,
 * the 429s of a fresh gate's first window pulled their queues' corrections down, the next calls
 * were under-charged and drew 429s of their own, and every 429 cut the learned cap for seconds: on
 * weighted-many-tenants with every completion at 120 tokens the token cap was 87.5 % used, 96.1 %
 * learning from the calls that ran; without feedback the under-charges fed on themselves, 21.4 %
 * 429s against 0.95 % (eval/README.md, "Weights and costs at platform scale").
 *
 * <p><b>Cold start, and a spent provider window.</b> Until its class has seen a release nothing has
 * been learnt, and the first calls of a fresh gate are charged their bare estimates. On
 * noisy-estimates the first sixteen calls used 1.75 times what they were charged and filled the
 * provider's first window within milliseconds; every call the gate admitted in the rest of that
 * window was refused, and those 429s (about 44 per run, retried in place) were most of the run's 3
 * % share. The provider says as much: its 429 says its window is spent, and until when (a reset
 * header, or {@code retry-after}). From that answer until then, L1 of the dimension is held at most
 * {@code r_d · (now − t)}, {@code t} the instant the 429 came ({@link #holdSpent}, fed by {@code
 * EffectiveCaps#spentFrom} and {@code #spentUntil}): whatever room L1 thought it had, the calls
 * charged too little have already used it, so L1 is empty when the 429 comes and refills at the
 * cap's rate from there, and the lines space the waiting calls as for any short bucket; calls that
 * do not need the dimension go on. A 429 that does not say when (the policy's {@code cooldown}
 * applies) empties nothing. L1 is not held empty until the reset: the reset is when the provider's
 * window is wholly unused again, and while a fixed window frees everything at that instant, a
 * sliding window or a token bucket frees room all along, at about the rate it was filled, and on a
 * busy one the reset is almost a whole period away. Held until the reset, each 429 stopped the
 * dimension for most of a second on weighted-many-tenants, whose window slides: 89.4 % of its token
 * cap and Jain 0.937, where emptying L1 gives 91.5 % and 0.959; on noisy-estimates, whose window is
 * fixed, both keep the 429s at 0.5 % (doing nothing to L1: 3.4 %; eval/README.md, "Weights and
 * costs at platform scale"). A prior (half the completion bound, charged until the class's first
 * release) was the other way; it is not part of the rule, because calls that use exactly their
 * estimate are then debited more than they use, and their refunds let a window's debits exceed the
 * cap plus burst (eval/README.md, "Noisy estimates and reservation: ablations", has the
 * measurements).
 *
 * <p><b>Waiting is not under-using.</b> A queue counts in its class's sums by its use ({@code
 * U_k,d}) while it is capped, so that what an under-using queue leaves goes to the others. Banking
 * L3 credit alone does not show that: a queue whose calls lose the race for a shared bucket banks
 * too, and so does a new queue, counted as capped until its next touch while its first call waits.
 * Counted by their small use, their shares went to the queues that had emptied the bucket, whose
 * rates rose and kept it empty: a split set by the first admissions lasted tens of seconds (on
 * mixed-dominant two identical tenants at 38 and 15 req/s for half a minute, against 26 each; on
 * many-tenants the 160 queues of P2 all started capped, and X* took 25 s to come down to the DRF
 * rate, so the weight-3 tenants got their share only late; a cold-start prior, by reshuffling the
 * first admissions, moved many-tenants' Jain from 0.971 to 0.944). So a deferred call makes its
 * queue count by its demand from the deferral until the time it was deferred to, and the queue is
 * not capped again meanwhile; the move is one withdraw and contribute, O(dimensions). This held
 * once only for queues that used less than half their equal split of the class, the others being
 * counted by their use as served. But a single-call queue banks its whole L3 bucket while its call
 * waits in its class's line, so counted by its use it lifted the class's {@code X*}: on
 * many-tenants the turns of P1's forty tenants came 0.2 to 4 s after their calls while the line
 * held them 7.4 s, and each tenant got one call per pass of the line whatever its prompts (Jain
 * 0.971, against 0.985 now). (eval/README.md, "What the first admissions left behind" and "Waiting
 * is waiting, served or not", has how this was found.)
 *
 * <p><b>Reservation mode</b> debits {@code estimate + max_tokens} (or the default), which never
 * under-counts, and L3 paces the queue by that same reservation: a call whose turn has come finds
 * L1, L2 and the safe window holding what it will debit. (Pacing L3 by the corrected estimate while
 * L1 needed the whole reservation sent calls back at their turn to find L1 short: 3.2 deferrals per
 * call.) Releases refund the unused part to every layer alike.
 *
 * <h2>A worked example</h2>
 *
 * Requests only, {@code C = 60/s}, burst 60, classes P1 (ω 0.5) and P3 (ω 0.2). Four P1 tenants
 * send 4 calls/s each; one P3 tenant {@code f} floods at 150 calls/s (open loop). Every call is one
 * request: {@code σ = 1/60 s}. Weight sums {@code W} are 4 and 1, so P1 is entitled to {@code 2.0 /
 * 2.2 · 60 = 54.5/s} and P3 to {@code 5.5/s}. P1 uses 16/s, leaves its bucket full and is never
 * deferred by its own buckets: satisfied, it hands {@code 54.5 − 16 = 38.5/s} to P3, whose {@code
 * eff} becomes 44/s and whose single queue refills at {@code ρ_f = 44/60 = 0.733} share/s. Each
 * flood call pays {@code 1/60} share; after 10 s the debt is about {@code (150 − 44) · 10 / 60 =
 * 17.7} shares, so the next call's turn is {@code 17.7 / (1.2 · 0.733) ≈ 20 s} away: one deferral
 * to its turn, not one per wake-up. A P1 tenant's calls come about 250 ms apart, less than {@code
 * H}, so it keeps its share between them; when the four stop, P1 leaves the sums 1 s after their
 * last release and P3 is entitled to the whole 60/s. P3 borrows, so its calls leave {@code 0.02 ·
 * 60 = 1.2} requests of L1 free; a P1 call finds them and is admitted at once. A flood call sent
 * with {@code maxWait = 1 s} instead, its turn ~20 s away, is answered {@code Expired} at once, and
 * the flood's debt stays what it was.
 *
 * <h2>The Lua twin</h2>
 *
 * {@code nested_buckets.lua} (shared arithmetic), {@code admit.lua} and {@code release.lua} take
 * the same decisions with the same arithmetic in the same order; the differential test in the redis
 * module compares answers and state after every step.
 *
 * <p>Neither side derives a number or an offset of its own. The parameters (the rates, bursts and
 * largest costs per dimension, the class weights, the horizons and TTLs in seconds and µs, the safe
 * window and its allowances, strict mode) are derived once from the policy, by {@link
 * io.backpressure.core.spi.DerivedPolicy}: {@link #configure} copies them, and the Redis backend's
 * {@code PolicyCodec.params} writes exactly those values for the scripts, which decode them in
 * {@code decode_params} (only provider feedback changes them there: {@code feedback.lua} writes the
 * learned caps' rates, bursts, largest costs and allowances in their place, and {@code follow_ramp}
 * scales them during a ramp, as the in-memory gate reconfigures this class with the learned caps;
 * see {@link io.backpressure.core.spi.EffectiveCaps}). The state layout (the offsets {@code G},
 * {@code LVL}, … of the table below, and the record sizes) is computed once, by {@code layout} in
 * {@code nested_buckets.lua}, which every script that reads or sizes the state runs (the client
 * prepends the file to each); a new state field is appended there. The redis module's {@code
 * StateLayoutTest} reads the levels and every queue through those scripts and compares them with
 * this class's, for one to three dimensions and three to five classes. Names:
 *
 * <table>
 *   <caption>Java fields and methods and their Lua names</caption>
 *   <tr><th>Java</th><th>Lua</th></tr>
 *   <tr><td>{@code DerivedPolicy.rate/burst/largest/allowance(d)}, {@code classWeight(k)}</td>
 *       <td>{@code P.rate[d]}, {@code P.burst[d]}, {@code P.largest[d]}, {@code P.allowance[d]},
 *       {@code P.weight[k]}</td></tr>
 *   <tr><td>{@code DerivedPolicy.horizonSeconds/horizonMicros/idleTtlMicros/grantTtlMicros/grantTtlMillis/safeWindowMicros/strict}</td>
 *       <td>{@code P.horizon/horizon_micros/idle/grant_ttl/grant_px/period/strict}</td></tr>
 *   <tr><td>{@link #configure}</td><td>{@code load_config} ({@code decode_params}, {@code layout})</td></tr>
 *   <tr><td>{@code global[d]}, {@code classLevel[k][d]}, {@code classUse[k][d]}</td>
 *       <td>{@code S[G+d]}, {@code S[LVL+at(k,d)]}, {@code S[USE+at(k,d)]}</td></tr>
 *   <tr><td>{@code hungryDemand}, {@code allDemand}, {@code satisfiedUse}</td>
 *       <td>{@code S[HD+..]}, {@code S[AD+..]}, {@code S[SU+..]}</td></tr>
 *   <tr><td>{@code classTail}, {@code lightTail}, {@code classCorrection}</td>
 *       <td>{@code S[CT+..]}, {@code S[LT+..]}, {@code S[CC+..]}</td></tr>
 *   <tr><td>{@code classReleases}</td><td>{@code S[CR+k]}</td></tr>
 *   <tr><td>{@code overdue}</td><td>{@code S[OD+..]}</td></tr>
 *   <tr><td>{@code Booking.paidShare/readyAt/expiresAt/lined/overdue/placesKept}</td>
 *       <td>the stored booking's fields by name ({@code BOOKING_AT} in nested_buckets.lua: {@code share, ready, expires, lined, overdue, kept})</td></tr>
 *   <tr><td>{@code activeQueues}, {@code satisfiedQueues}, {@code classDeferred}, {@code weightSum}</td>
 *       <td>{@code S[N+k]}, {@code S[NS+k]}, {@code S[CD+k]}, {@code S[WS+k]}</td></tr>
 *   <tr><td>{@code lastMicros}, {@code touches}</td><td>{@code S[LAST]}, {@code S[SEQ]}</td></tr>
 *   <tr><td>{@code nominal}, {@code effective}, {@code borrowing} (per step)</td>
 *       <td>{@code nominal}, {@code effective}, {@code borrowing}</td></tr>
 *   <tr><td>{@code Queue.level/capacity/rate/weight/capped/lastMicros/lastSeen/seq/deferredAt/outstanding}</td>
 *       <td>{@code q.lvl/cap/rate/w/sat/last/seen/seq/deferred/out}</td></tr>
 *   <tr><td>{@code Queue.correction/waitingUntil/releases/linedAt}</td><td>{@code q.corr/waiting/rel/lined}</td></tr>
 *   <tr><td>{@code Queue.satisfied} (per step)</td><td>{@code q.within}</td></tr>
 *   <tr><td>{@code bySeen} (by last seen, {@link SeenHeap})</td><td>the {@code seen} sorted set</td></tr>
 *   <tr><td>{@link #admit}, {@code touch}, {@code turnAfter}, {@code headroom}, {@code overdueOfOthers}, {@code after}, {@code sharedSlot}</td>
 *       <td>{@code admit}, {@code touch}, {@code turn_after}, {@code headroom}, {@code overdue_of_others}, {@code after}, {@code shared_slot}</td></tr>
 *   <tr><td>{@code keepsPlace}, {@code pacedByLines} (in touch), {@code borrows}, {@code dominantUse}, {@code equalSplitRate}</td>
 *       <td>{@code keeps_place}, {@code paced_by_lines}, {@code borrows}, {@code dominant_use}, {@code equal_split_rate}</td></tr>
 *   <tr><td>{@code correction}, {@code uncap}, {@code learningWeight}</td>
 *       <td>{@code corrections} in {@code admit} (admit.lua), {@code uncap}, {@code learning_weight}</td></tr>
 *   <tr><td>{@code advance}, {@code computeShares}, {@code strictShares}, {@code equalisationRate}</td>
 *       <td>{@code advance}, {@code compute_shares}, {@code strict_shares}, {@code equalisation_rate}</td></tr>
 *   <tr><td>{@code holdSpent}, {@code spentUntil[d]}, {@code spentFrom[d]}</td>
 *       <td>{@code hold_spent}, {@code P.spent} (the config hash's {@code fb_spent}, written by {@code feedback.lua}: each dimension's until, then each one's from)</td></tr>
 *   <tr><td>{@code refill}, {@code contribute}, {@code withdraw}, {@code released}, {@code evictIdle}, {@code seenUntil}</td>
 *       <td>{@code refill}, {@code contribute}, {@code withdraw}, {@code released}, {@code evict_idle}, the {@code ZADD} in {@code admit}</td></tr>
 *   <tr><td>{@link #release}</td><td>{@code release.lua}</td></tr>
 *   <tr><td>{@link #charge}</td><td>{@code charge.lua}</td></tr>
 *   <tr><td>{@code WaitingLines} (in {@link InMemoryGate})</td><td>the {@code w:<k>} lists, {@code purge_waiting}</td></tr>
 * </table>
 */
final class NestedBuckets implements AdmissionRule {
  /** A bucket at or above this fraction of its capacity marks an under-using class or queue. */
  static final double SATISFIED_FRACTION = 0.5;

  /** Shortest deferral handed out; retrying sooner than this is never useful. */
  static final long MIN_DEFER_MICROS = 1_000L;

  /**
   * Slack in every "holds enough" comparison, so that sums of shares such as 60 × (1/60) that
   * should meet a level exactly are not lost to rounding.
   */
  static final double EPSILON = 1e-9;

  /**
   * The least room, as a fraction of the largest cost, that a class using capacity handed down by
   * others must see come free again in the safe window soon after it takes the last of it: where
   * classes within their share are admitted.
   */
  static final double HEADROOM = 0.02;

  /**
   * How many calls like its own a class using capacity handed down by others may find missing from
   * a full L1 and still be admitted: its tolerance for calls that come back late. With one, the
   * open-loop flood used 93.9 % of the cap, 89.8 % at a quarter of its cap; with two, 95.8 % and
   * 91.3 %.
   */
  static final int BORROWER_BURST_CALLS = 2;

  /**
   * Within how long a borrowing call that takes the last room in the safe window must see room for
   * one more call like its own come free again, in units of the time L1 takes to refill that room.
   * An under-share call that finds no room waits at most this long, and comes back as late as its
   * timer fires. At one unit, the interactive p95 wait of interactive-under-batch in the
   * conformance suite, where every deferred caller comes back 5 to 20 ms late, was 94 ms; at one
   * half 41 ms, with 94.6 % of the token cap used; at one quarter 25 ms, but the flood at a quarter
   * of its cap used 89.2 %, against 91.3 % at one half and 93.4 % at one unit.
   */
  static final double ROOM_AHEAD = 0.5;

  /**
   * How many times a lined call that finds the capacity its slot promised taken keeps its place,
   * instead of lining up at the back (see "Promises across classes: overdue calls").
   */
  static final int PLACES_KEPT = 2;

  /**
   * How much faster than its current rate a queue's backlog is expected to drain (see turnAfter).
   */
  static final double TURN_LEAD = 0.2;

  /** Weight of the newest release in a queue's estimate correction (an exponential average). */
  static final double CORRECTION_WEIGHT = 0.2;

  /**
   * Releases after which an estimate correction is an exponential average; before, it is the mean
   * of the releases it has seen (see "Estimates").
   */
  static final int LEARNING_RELEASES = (int) Math.round(1 / CORRECTION_WEIGHT);

  /** Gaps between steps (µs) below which the usage decay is kept once computed (see decay). */
  private static final int DECAY_MEMO = 1024;

  /** The usage decay of each gap below {@link #DECAY_MEMO} µs, 0 until computed (see decay). */
  private final double[] decays = new double[DECAY_MEMO];

  private Policy policy;
  private DerivedPolicy derived;
  private final int dims;
  private final int classes;
  private double[] rate;
  private double[] burst;
  private double[] largest;
  private double[] classWeight;
  private double horizon;

  /**
   * Whether the policy names tenant weights; when it names none, every tenant weighs {@code
   * defaultWeight} and a touch need not look its tenant up.
   */
  private boolean namedWeights;

  private double defaultWeight;
  private long idleTtlMicros;
  private boolean strict;

  private boolean started;

  /** Whether the first step creates L1 empty rather than full (see {@link #startEmpty()}). */
  private boolean emptyAtStart;

  /** Whether the first step counts the safe window as spent (see {@link #startAfterLoss()}). */
  private boolean spentAtStart;

  private long lastMicros;
  private final double[] global;

  /** Per dimension, until when (µs) the provider's window is spent ({@link #spent}). */
  private final long[] spentUntil;

  /** Per dimension, when (µs) the 429 came that said the provider's window is spent. */
  private final long[] spentFrom;

  private final double[][] classLevel;
  private final double[][] classUse;
  private final double[][] effective;
  private final double[][] nominal;

  /** L2 capacity: the largest cost, or a horizon of the class's nominal rate if larger. */
  private final double[][] classCap;

  private final boolean[][] hungry;

  /**
   * Whether an active class's effective rate is above its nominal share (it uses handed-down
   * capacity).
   */
  private final boolean[][] borrowing;

  private final double[][] hungryDemand;
  private final double[][] allDemand;
  private final double[][] satisfiedUse;

  /**
   * Per class, the estimate correction of a queue that has seen no release of its own (learnt from
   * every release in the class).
   */
  private final double[][] classCorrection;

  /** Per class, the releases its correction has learnt from, counted up to LEARNING_RELEASES. */
  private final int[] classReleases;

  private final SlidingWindow[] windows;
  private final long[] classDeferred;
  private long horizonMicros;
  private final long[][] classTail;

  /** Per class and dimension, the tail of the calls of queues within their share. */
  private final long[][] lightTail;

  private final long[] globalSlot;
  private final long[] classSlot;
  private final long[] keptSlot;
  private final boolean[] lightSlot;
  private final int[] activeQueues;
  private final int[] satisfiedQueues;

  private final Map<String, Queue>[] queues;

  /** Active queues by the time they were last seen (then touch order): the idle-eviction order. */
  private final SeenHeap<Queue> bySeen = new SeenHeap<>(NestedBuckets::seenOrder);

  /** Σ w_t over each class's active queues ({@code W_k}). */
  private final double[] weightSum;

  /** Per class, {@code ω_k · W_k} (in {@code sizeShares}). */
  private final double[] classWeighted;

  /**
   * Per class, the fraction of each dimension's rate that is its nominal share (in {@code
   * sizeShares}): {@code ω_k·W_k / Σ_j ω_j·W_j} for an active class, {@code ω_k / (Σ + ω_k)} for
   * one that is not.
   */
  private final double[] shareOfRate;

  /**
   * Per class and dimension, {@code shareOfRate[k] · r_d}: the nominal rate of an active class, the
   * rate an inactive one would get on becoming active (in {@code sizeShares}).
   */
  private final double[][] classShare;

  /**
   * What {@code sizeShares} last sized the classes from: each class's active queues and the bits of
   * its weight sum; {@code sized} is false until the first sizing and after {@link #configure}.
   */
  private final int[] sizedQueues;

  private final long[] sizedWeightSum;
  private boolean sized;

  /** Per class, whether one of its calls was deferred within the share horizon (per step). */
  private final boolean[] deferredLately;

  private long touches;

  /**
   * Per class and dimension, the cost of the class's overdue calls (units): calls that came back at
   * the slot a line had given them and found its capacity taken. Until they are back, the calls of
   * other classes' queues using their share leave it free in L1 and the safe window (unless the
   * overdue class borrows). It fades with time constant {@code H}, so a caller that never comes
   * back does not hold it for long.
   */
  private final double[][] overdue;

  @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array is created raw
  NestedBuckets(Policy policy) {
    this.dims = policy.dimensions().size();
    this.classes = policy.priorities().size();
    this.global = new double[dims];
    this.spentUntil = new long[dims];
    Arrays.fill(spentUntil, Long.MIN_VALUE);
    this.spentFrom = new long[dims];
    Arrays.fill(spentFrom, Long.MIN_VALUE);
    this.classLevel = new double[classes][dims];
    this.classUse = new double[classes][dims];
    this.effective = new double[classes][dims];
    this.nominal = new double[classes][dims];
    this.classCap = new double[classes][dims];
    this.hungry = new boolean[classes][dims];
    this.borrowing = new boolean[classes][dims];
    this.hungryDemand = new double[classes][dims];
    this.allDemand = new double[classes][dims];
    this.satisfiedUse = new double[classes][dims];
    this.classCorrection = new double[classes][dims];
    this.classReleases = new int[classes];
    this.windows = new SlidingWindow[dims];
    this.classDeferred = new long[classes];
    java.util.Arrays.fill(classDeferred, Long.MIN_VALUE / 2);
    this.classTail = new long[classes][dims];
    this.lightTail = new long[classes][dims];
    this.globalSlot = new long[dims];
    this.classSlot = new long[dims];
    this.keptSlot = new long[dims];
    this.lightSlot = new boolean[dims];
    this.activeQueues = new int[classes];
    this.weightSum = new double[classes];
    this.classWeighted = new double[classes];
    this.shareOfRate = new double[classes];
    this.classShare = new double[classes][dims];
    this.sizedQueues = new int[classes];
    this.sizedWeightSum = new long[classes];
    this.deferredLately = new boolean[classes];
    this.satisfiedQueues = new int[classes];
    this.overdue = new double[classes][dims];
    this.queues = new Map[classes];
    for (int k = 0; k < classes; k++) {
      queues[k] = new HashMap<>();
    }
    configure(policy);
  }

  /**
   * Makes the first step create L1 empty instead of full: for a stand-in that takes over from state
   * that was admitting at the cap a moment ago (a fail-over to a local gate, state lost and
   * rebuilt), so that the provider's current window does not see a fresh burst on top. Only L1 is
   * the cap; the class buckets (L2) start full, as every class's does when it becomes active, so
   * the first calls find only L1 short and line up behind their class's tails at the cap's pace (a
   * queue within its share behind the light tail, spaced at {@code c_d / r_d}) rather than all
   * being told the same turn.
   */
  @Override
  public void startEmpty() {
    emptyAtStart = true;
  }

  /**
   * {@link #startEmpty()}, and under a safe window the first step also counts the window's whole
   * allowance as admitted at that step, so nothing is admitted for one period: for state rebuilt
   * after it was lost (the Redis backend's restart, guards.lua), whose last period is unknown. The
   * provider's current window may hold up to the allowance admitted at any moment of it — a burst
   * just before the loss included — and empty buckets alone would refill into it.
   */
  @Override
  public void startAfterLoss() {
    emptyAtStart = true;
    spentAtStart = true;
  }

  /**
   * Adopts new caps and weights; the dimension and class names must stay the same. Levels are
   * clamped to the new capacities at the next step, as the Redis backend does.
   */
  @Override
  public void configure(Policy next) {
    if (!next.dimensionNames()
            .equals(policy == null ? next.dimensionNames() : policy.dimensionNames())
        || !next.priorityNames()
            .equals(policy == null ? next.priorityNames() : policy.priorityNames())) {
      throw new InvalidPolicyException(
          "dimensions",
          "a live gate can change caps and weights, not its dimensions or classes; create a new gate");
    }
    this.policy = next;
    DerivedPolicy derived = DerivedPolicy.of(next);
    this.derived = derived;
    this.rate = new double[dims];
    this.burst = new double[dims];
    this.largest = new double[dims];
    for (int d = 0; d < dims; d++) {
      rate[d] = derived.rate(d);
      burst[d] = derived.burst(d);
      largest[d] = derived.largest(d);
    }
    this.classWeight = new double[classes];
    for (int k = 0; k < classes; k++) {
      classWeight[k] = derived.classWeight(k);
    }
    this.namedWeights = !next.tenantWeights().isEmpty();
    this.defaultWeight = next.defaultTenantWeight();
    this.horizon = derived.horizonSeconds();
    Arrays.fill(decays, 0);
    this.sized = false;
    this.horizonMicros = derived.horizonMicros();
    this.idleTtlMicros = derived.idleTtlMicros();
    this.strict = derived.strict();
    for (int d = 0; d < dims; d++) {
      if (!derived.hasSafeWindow()) {
        windows[d] = null;
      } else {
        long period = derived.safeWindowMicros();
        double allowance = derived.allowance(d);
        if (windows[d] == null) {
          windows[d] = new SlidingWindow(period, allowance);
        } else {
          windows[d].resize(period, allowance);
        }
      }
    }
  }

  @Override
  public Policy policy() {
    return policy;
  }

  /** The numbers derived from the policy in force (see {@link DerivedPolicy}). */
  @Override
  public DerivedPolicy derived() {
    return derived;
  }

  /** The dominant share of a cost: {@code max_d c_d / r_d}, in seconds of the whole cap. */
  double share(double[] cost) {
    double sigma = 0;
    for (int d = 0; d < dims; d++) {
      sigma = max(sigma, cost[d] / rate[d]);
    }
    return sigma;
  }

  /**
   * One admission attempt at {@code now} (microseconds). {@code estimate} is the caller's cost;
   * {@code reserve}, in reservation mode, what to debit and pace by instead (null otherwise).
   * {@code booking} is the call's place in line: fresh on the first attempt (this step pays the
   * call's share into L3 and fills it in), or the one returned with an earlier deferral. Returns
   * the deferral in microseconds, or 0 when the call was admitted and debited; the booking then
   * holds what was debited, for {@link #release}.
   */
  @Override
  public long admit(
      long now,
      String tenant,
      int k,
      double[] estimate,
      double @Nullable [] reserve,
      Booking booking,
      long maxWaitMicros) {
    advance(now);
    Queue q = queues[k].get(tenant);
    double[] paced = booking.paced;
    for (int d = 0; d < dims; d++) {
      // In reservation mode L3 paces by the reservation L1 and L2 debit: a call whose turn has come
      // finds them holding it, instead of being deferred again for the difference.
      paced[d] = reserve != null ? reserve[d] : min(largest[d], estimate[d] + correction(q, k, d));
    }
    booking.estimate = estimate;
    double[] cost = paced;
    booking.debit = cost;
    double sigma = share(paced);
    q = touch(now, tenant, k, paced, sigma, !booking.paid, q);
    booking.queue = q;
    boolean fresh = !booking.paid;
    // An overdue call takes its promise back first: it owes no overdue call anything.
    boolean wasOverdue = booking.overdue;
    if (wasOverdue) {
      for (int d = 0; d < dims; d++) {
        overdue[k][d] = max(0, overdue[k][d] - paced[d]);
      }
      booking.overdue = false;
    }
    long turn;
    if (fresh) {
      q.level -= sigma;
      turn = q.level >= -EPSILON ? now : turnAfter(now, -q.level, sigma, q.rate);
    } else {
      q.level -= sigma - booking.paidShare;
      turn = booking.readyAt;
    }

    boolean classShort = false;
    boolean globalShort = false;
    // A lined call back at or after its slot that may keep its place (see overdue) waits behind
    // the overdue calls of its class promised before it, if its queue uses its share.
    boolean keepsPlace = keepsPlace(booking, k, q);
    boolean keeping = keepsPlace && !fresh && now >= booking.readyAt;
    boolean behindOverdue = keeping && !q.satisfied;
    for (int d = 0; d < dims; d++) {
      globalSlot[d] = now;
      classSlot[d] = now;
      keptSlot[d] = now;
      if (cost[d] <= 0) {
        continue;
      }
      double need = cost[d];
      double windowNeed = cost[d];
      double room = 0;
      if (!q.satisfied && borrowing[k][d]) {
        need = max(cost[d], burst[d] - BORROWER_BURST_CALLS * cost[d]);
        room = headroom(cost[d], d);
      }
      if (!q.satisfied && !wasOverdue) {
        double owed = overdueOfOthers(k, d);
        need += owed;
        windowNeed += owed;
      }
      globalSlot[d] = sharedSlot(now, d, need, windowNeed, room);
      globalShort |= globalSlot[d] > now;
      if (behindOverdue) {
        keptSlot[d] = sharedSlot(now, d, need + overdue[k][d], windowNeed + overdue[k][d], room);
      }
      if (cost[d] > classLevel[k][d] + EPSILON) {
        classSlot[d] = after(now, cost[d] - classLevel[k][d], effective[k][d]);
        classShort = true;
      }
    }
    // A call that finds a shared bucket (L1, the window or L2) short lines up behind its own
    // class's tail, spaced at the class's effective rate, unless its queue is within its share.
    // Classes never line up behind each other, and an under-share queue behind no one.
    long slot = now;
    long behind = fresh ? now : max(now, booking.readyAt);
    // A booked call back before its turn keeps its place. One back at or after a slot a line gave
    // it that finds the capacity taken keeps its place up to PLACES_KEPT times, unless its class
    // borrows and its queue is in debt: it waits until the shared buckets hold it (and, using its
    // share, what its class's overdue calls were promised before it), overdue meanwhile (see
    // overdue). Bounced once more, it lines up at the back.
    boolean lineUp = fresh || (now >= booking.readyAt && !keepsPlace);
    // A single-call queue's fresh call, its turn now, waits for its own finish time instead (see
    // "Single-call queues wait for their own finish time").
    boolean ownFinish = fresh && q.outstanding == 0 && turn == now && !q.satisfied && q.rate > 0;
    for (int d = 0; d < dims; d++) {
      boolean light = q.satisfied && classSlot[d] <= now;
      long shortSlot = max(globalSlot[d], classSlot[d]);
      if (lineUp && cost[d] > 0 && shortSlot > now) {
        if (ownFinish) {
          shortSlot = max(shortSlot, after(now, sigma, q.rate));
        } else if (!q.satisfied && classTail[k][d] > behind) {
          shortSlot = max(shortSlot, after(classTail[k][d], paced[d], effective[k][d]));
        } else if (light && lightTail[k][d] > behind) {
          shortSlot = max(shortSlot, lightTail[k][d] + micros(paced[d] / rate[d]));
        }
      }
      lightSlot[d] = light;
      classSlot[d] = shortSlot;
      slot = max(slot, shortSlot);
    }
    long ready = max(slot, turn);
    if (ready > now && behindOverdue) {
      for (int d = 0; d < dims; d++) {
        ready = max(ready, keptSlot[d]);
      }
    }
    if (ready > now && maxWaitMicros >= 0 && max(MIN_DEFER_MICROS, ready - now) > maxWaitMicros) {
      q.level += sigma;
      if (!fresh && q.outstanding > 0) {
        q.outstanding--;
      }
      if (q.outstanding == 0) {
        released(now, q);
      }
      if (!fresh) {
        // A booked call gives its slot in its class's line back too.
        for (int d = 0; d < dims; d++) {
          if (cost[d] > 0 && classTail[k][d] > now) {
            classTail[k][d] = max(now, classTail[k][d] - after(0, paced[d], effective[k][d]));
          }
          if (cost[d] > 0 && lightTail[k][d] > now) {
            lightTail[k][d] = max(now, lightTail[k][d] - micros(paced[d] / rate[d]));
          }
        }
      }
      return -max(1, ready - now);
    }
    booking.paid = true;
    booking.paidShare = sigma;
    if (fresh || q.outstanding == 0) {
      q.outstanding++;
    }
    if (ready > now) {
      if (booking.lined && !fresh && now >= booking.readyAt) {
        booking.overdue = true;
        booking.placesKept++;
        for (int d = 0; d < dims; d++) {
          overdue[k][d] += paced[d];
        }
      }
      booking.lined = slot > now && slot >= turn && !ownFinish;
      if (booking.lined) {
        for (int d = 0; d < dims; d++) {
          long[] tail = lightSlot[d] ? lightTail[k] : classTail[k];
          tail[d] = max(tail[d], classSlot[d]);
        }
      }
      booking.readyAt = ready;
      if (classShort
          || turn > now
          || (strict && globalShort)
          || (globalShort && usesShare(k, now))) {
        classDeferred[k] = now;
      }
      if (turn > now) {
        q.deferredAt = now;
      }
      if (booking.lined) {
        q.linedAt = now;
      }
      // A waiting queue is waiting, not under-using.
      uncap(q, ready);
      seenUntil(q, ready);
      return max(MIN_DEFER_MICROS, ready - now);
    }
    booking.readyAt = now;
    for (int d = 0; d < dims; d++) {
      if (windows[d] != null) {
        if (booking.entries == null) {
          booking.entries = new SlidingWindow.Entry[dims];
        }
        booking.entries[d] = windows[d].add(now, cost[d]);
      }
      global[d] -= cost[d];
      classLevel[k][d] -= cost[d];
      double used = cost[d] / horizon;
      classUse[k][d] += used;
      q.use[d] += used;
      if (q.capped) {
        satisfiedUse[k][d] += used;
      }
    }
    return 0;
  }

  /**
   * What a call of queue {@code q} (null: not active yet) in class {@code k} is charged in
   * dimension {@code d} beyond its estimate: its class's correction until the queue has seen a
   * release of its own, then the queue's.
   */
  private double correction(@Nullable Queue q, int k, int d) {
    return q == null || q.releases == 0 ? classCorrection[k][d] : q.correction[d];
  }

  /**
   * The weight of the newest release in a correction that has learnt from {@code releases}: the
   * running mean's {@code 1 / (releases + 1)} until that falls to {@link #CORRECTION_WEIGHT}.
   */
  private static double learningWeight(int releases) {
    return max(CORRECTION_WEIGHT, 1.0 / (releases + 1));
  }

  /**
   * A queue whose call was just deferred to {@code ready} (µs) is waiting, not under-using,
   * whatever its L3 bucket banks: it counts by its demand ({@code D_k,d}), not by its use ({@code
   * U_k,d}), from now until then (see "Waiting is not under-using").
   */
  private void uncap(Queue q, long ready) {
    q.waitingUntil = max(q.waitingUntil, ready);
    if (q.capped) {
      withdraw(q);
      q.capped = false;
      contribute(q);
    }
  }

  /**
   * When a fresh call whose queue is {@code debt} shares behind (its own share {@code sigma}
   * included) has its turn: the calls ahead of it drain at {@code (1 + TURN_LEAD) · rate}, its own
   * share at {@code rate}. A deep backlog's turns are therefore promised a little early: a call
   * that comes back early lines up in its class's line, while one promised too late would leave the
   * cap idle when the rate rises.
   */
  private long turnAfter(long now, double debt, double sigma, double rate) {
    double ahead = max(0, debt - sigma);
    return after(after(now, ahead, rate * (1 + TURN_LEAD)), min(debt, sigma), rate);
  }

  /**
   * When L1 holds {@code amount} and the safe window of dimension {@code d} holds {@code
   * windowAmount}, and will hold {@code room} more within {@link #ROOM_AHEAD} of the time L1 takes
   * to refill {@code room} (µs): {@code now} if they do already, else when L1 has refilled enough
   * at its rate and enough of the window has expired.
   */
  private long sharedSlot(long now, int d, double amount, double windowAmount, double room) {
    long at = now;
    if (amount > global[d] + EPSILON) {
      at = now + micros((amount - global[d]) / rate[d]);
    }
    if (windows[d] != null) {
      at = max(at, windows[d].fitsAt(now, windowAmount));
      if (room > 0) {
        at =
            max(
                at,
                windows[d].fitsAt(now, windowAmount + room) - micros(ROOM_AHEAD * room / rate[d]));
      }
    }
    return at;
  }

  /**
   * The room a borrowing call of {@code cost} in dimension {@code d} must see come free again soon
   * in the safe window: one more call like it, at least {@link #HEADROOM} of the largest cost,
   * never so much that the call could not fit at all.
   */
  private double headroom(double cost, int d) {
    return max(0, min(max(HEADROOM * largest[d], cost), largest[d] - cost));
  }

  /**
   * Whether a call of class {@code k} holding {@code booking} keeps its place when it finds the
   * capacity its slot promised taken: a line gave it the slot, it has kept its place fewer than
   * {@link #PLACES_KEPT} times, and its class does not borrow or its queue {@code q}, this call
   * paid, is not in debt (see "Promises across classes: overdue calls").
   */
  private boolean keepsPlace(Booking booking, int k, Queue q) {
    return booking.lined
        && booking.placesKept < PLACES_KEPT
        && (!borrows(k) || q.level >= -EPSILON);
  }

  /**
   * Whether class {@code k} already uses at least its nominal share of a dimension whose shared
   * buckets (L1 or the safe window) are short at {@code now} for the call being deferred: deferred
   * there, it lacks capacity, not others (see "A class that uses its share and finds the shared
   * buckets short"). A class that had no active queue when this step sized the shares has no
   * nominal rate yet and uses no share: its first call back after an idle spell is not hunger.
   */
  private boolean usesShare(int k, long now) {
    for (int d = 0; d < dims; d++) {
      if (globalSlot[d] > now && nominal[k][d] > 0 && classUse[k][d] >= nominal[k][d]) {
        return true;
      }
    }
    return false;
  }

  /** Whether class {@code k} uses capacity handed down by others in some dimension. */
  private boolean borrows(int k) {
    for (int d = 0; d < dims; d++) {
      if (borrowing[k][d]) {
        return true;
      }
    }
    return false;
  }

  /**
   * What a call of class {@code k} must leave free in dimension {@code d}'s shared buckets for the
   * overdue calls of other classes (units): capacity their lines promised them and others took. A
   * class that borrows is owed nothing: what it was promised was handed down by the others, who may
   * take it back at once.
   */
  private double overdueOfOthers(int k, int d) {
    double owed = 0;
    for (int j = 0; j < classes; j++) {
      if (j != k && !borrowing[j][d]) {
        owed += overdue[j][d];
      }
    }
    return owed;
  }

  /**
   * The time {@code amount} takes to refill at {@code rate}, from {@code from} (µs); one share
   * horizon when the rate is zero (a strict-mode class that higher classes leave nothing).
   */
  private long after(long from, double amount, double rate) {
    return rate > 0 ? from + micros(amount / rate) : from + horizonMicros;
  }

  /** Seconds to whole microseconds, rounded up. */
  private static long micros(double seconds) {
    return (long) Math.ceil(seconds * 1e6);
  }

  /**
   * Reconciles an admitted call: {@code debited − actual} goes back to L1 and L2 (a negative amount
   * takes more), the queue's L3 gets back the difference between the share it paid and the share
   * the call really had, and the queue's estimate correction learns from {@code actual − estimate}.
   */
  @Override
  public void release(long now, Booking grant, double[] actual) {
    advance(now, false);
    int k = grant.priority;
    // The queue the call was admitted in, unless it has left since (then the tenant's queue now, if
    // it came back): the same queue the map holds for the tenant, without the look-up.
    Queue q = grant.queue != null && !grant.queue.left ? grant.queue : queues[k].get(grant.tenant);
    if (q != null) {
      refill(now, q);
    }
    for (int d = 0; d < dims; d++) {
      double back = grant.debit[d] - actual[d];
      if (windows[d] != null && grant.entries != null && grant.entries[d] != null) {
        windows[d].adjust(grant.entries[d], now, -back);
      }
      global[d] = min(burst[d], global[d] + back);
      classLevel[k][d] = min(classCap[k][d], classLevel[k][d] + back);
      double used = back / horizon;
      classUse[k][d] = max(0, classUse[k][d] - used);
      if (q != null) {
        q.use[d] = max(0, q.use[d] - used);
        if (q.capped) {
          satisfiedUse[k][d] = max(0, satisfiedUse[k][d] - used);
        }
      }
    }
    if (ran(grant.estimate, actual)) {
      learn(q, k, grant.estimate, actual);
    }
    if (q != null) {
      q.level = min(q.capacity, q.level + grant.paidShare - share(actual));
      if (q.outstanding > 0 && --q.outstanding == 0) {
        released(now, q);
      }
    }
  }

  /**
   * The estimate corrections of queue {@code q} (null: it has left) and of its class {@code k}
   * learn from a released call that ran: {@code actual − estimate}, as a running mean until {@link
   * #LEARNING_RELEASES} releases, then an exponential average (see "Estimates").
   */
  private void learn(@Nullable Queue q, int k, double[] estimate, double[] actual) {
    for (int d = 0; d < dims; d++) {
      double error = max(0, actual[d] - estimate[d]);
      if (q != null) {
        q.correction[d] += learningWeight(q.releases) * (error - q.correction[d]);
      }
      classCorrection[k][d] += learningWeight(classReleases[k]) * (error - classCorrection[k][d]);
    }
    classReleases[k] = min(LEARNING_RELEASES, classReleases[k] + 1);
    if (q != null) {
      q.releases = min(LEARNING_RELEASES, q.releases + 1);
    }
  }

  /**
   * Whether a released call ran: the provider counted something of every dimension the call was
   * estimated to use. A call refused (a 429 whose tokens the provider does not count) or handed
   * back unsent used nothing, which says nothing about how far its estimate falls short, so only
   * the calls that ran teach the corrections (see "Estimates").
   */
  private boolean ran(double[] estimate, double[] actual) {
    for (int d = 0; d < dims; d++) {
      if (estimate[d] > 0 && actual[d] <= 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Debits {@code spent} from L1 only, after refilling to {@code now}: calls admitted without the
   * state (see {@link Gate#charge}). L1 alone bounds what the provider sees; the classes and queues
   * did not take part in those calls, so their buckets and shares stay as they are. The level may
   * go negative, but a charge takes it at most one burst below empty: calls let through ungated at
   * many times the cap were mostly refused by the provider, and a level a burst below empty already
   * holds the gate off until a burst's worth of the cap has passed.
   */
  @Override
  public void charge(long now, double[] spent) {
    advance(now, false);
    for (int d = 0; d < dims; d++) {
      global[d] = max(global[d] - spent[d], min(global[d], -burst[d]));
    }
  }

  /** Refills L1 and L2 and decays the usage averages up to {@code now}, for an admission. */
  private void advance(long now) {
    advance(now, true);
  }

  /**
   * Refills L1 and L2 and decays the usage averages up to {@code now}. A step that decides nothing
   * ({@code deciding} false: a release or a charge) uses the class rates only to refill L2 over the
   * elapsed time, so when no time has elapsed since the last step it sizes the classes' capacities
   * and leaves the hand-down of the rates ({@code computeShares}) to the next admission: the refill
   * adds {@code effective · 0}, which is {@code +0} for any of the finite, non-negative rates the
   * last step computed as for the ones this step would, so the levels come out the same bits.
   */
  private void advance(long now, boolean deciding) {
    if (!started) {
      started = true;
      lastMicros = now;
      computeShares(now);
      for (int d = 0; d < dims; d++) {
        global[d] = emptyAtStart ? 0 : burst[d];
        for (int k = 0; k < classes; k++) {
          classLevel[k][d] = classCap[k][d];
        }
        if (spentAtStart && windows[d] != null) {
          windows[d].fill(now);
        }
      }
      holdSpent(now);
      return;
    }
    long lastStep = lastMicros;
    double dt = now > lastMicros ? (now - lastMicros) / 1e6 : 0;
    lastMicros = max(lastMicros, now);
    evictIdle(now);
    if (deciding || dt > 0) {
      computeShares(now);
    } else {
      sizeShares();
    }
    for (int d = 0; d < dims; d++) {
      if (windows[d] != null) {
        windows[d].expire(now);
      }
    }
    double decay = dt > 0 ? decay(now - lastStep, dt) : 1;
    for (int d = 0; d < dims; d++) {
      global[d] = min(burst[d], global[d] + rate[d] * dt);
    }
    // Class by class, so that each class's rows are read once: every value is its own expression,
    // so the order of the loops changes no bit.
    for (int k = 0; k < classes; k++) {
      double[] capacity = classCap[k];
      double[] level = classLevel[k];
      double[] rates = effective[k];
      double[] use = classUse[k];
      double[] satisfied = satisfiedUse[k];
      double[] owed = overdue[k];
      boolean active = activeQueues[k] > 0;
      boolean anySatisfied = satisfiedQueues[k] > 0;
      for (int d = 0; d < dims; d++) {
        level[d] = active ? min(capacity[d], level[d] + rates[d] * dt) : capacity[d];
        use[d] *= decay;
        satisfied[d] = anySatisfied ? satisfied[d] * decay : 0;
        owed[d] *= decay;
      }
    }
    holdSpent(now);
  }

  /**
   * Keeps L1 of each dimension whose provider window is spent (see "Cold start, and a spent
   * provider window") at most what it would hold had it been empty when the 429 came: {@code r_d ·
   * (now − from)}, until the window's reset.
   */
  private void holdSpent(long now) {
    for (int d = 0; d < dims; d++) {
      if (spentUntil[d] > now) {
        global[d] = min(global[d], rate[d] * ((now - spentFrom[d]) / 1e6));
      }
    }
  }

  /**
   * Dimension {@code d}'s spent provider window, from {@code EffectiveCaps#spentFrom} and {@code
   * #spentUntil}: when the 429 that said so came and until when the window is spent (µs; {@link
   * Long#MIN_VALUE}: none). From the next step on, L1 of {@code d} holds at most what it refilled
   * since the 429.
   */
  @Override
  public void spent(int d, long from, long until) {
    spentFrom[d] = from;
    spentUntil[d] = until;
  }

  /**
   * Nominal and effective class rates from the active set and the classes' current levels. A class
   * counts as satisfied in a dimension when its bucket is at least half full and none of its calls
   * was deferred within the share horizon: a class whose callers lose races for the global cap
   * banks L2 credit too, but it is waiting, not idle.
   */
  private void computeShares(long now) {
    sizeShares();
    for (int k = 0; k < classes; k++) {
      deferredLately[k] = now - classDeferred[k] <= horizonMicros;
    }
    for (int d = 0; d < dims; d++) {
      double unused = 0;
      double hungryWeight = 0;
      for (int k = 0; k < classes; k++) {
        boolean active = activeQueues[k] > 0;
        double share = classShare[k][d];
        nominal[k][d] = active ? share : 0;
        hungry[k][d] =
            active && (classLevel[k][d] < SATISFIED_FRACTION * classCap[k][d] || deferredLately[k]);
        if (hungry[k][d]) {
          hungryWeight += classWeighted[k];
        } else if (active) {
          unused += max(0, share - classUse[k][d]);
        }
      }
      if (strict) {
        strictShares(d);
      } else {
        for (int k = 0; k < classes; k++) {
          if (activeQueues[k] == 0) {
            effective[k][d] = classShare[k][d];
          } else {
            effective[k][d] =
                hungry[k][d]
                    ? nominal[k][d] + unused * classWeight[k] * weightSum[k] / hungryWeight
                    : nominal[k][d];
          }
        }
      }
      for (int k = 0; k < classes; k++) {
        borrowing[k][d] = activeQueues[k] > 0 && effective[k][d] > nominal[k][d] + EPSILON;
      }
    }
  }

  /**
   * What depends on the classes' active queues and weight sums alone (and the policy): {@code ω_k ·
   * W_k}, each class's fraction of the rates and its share of each ({@code (ω_k·W_k / Σ) · r_d},
   * the nominal rate of an active class), and its L2 capacity {@code max(B_d, share · H)}. Most
   * steps leave every class's active queues and weight sum as they were, so the values are kept and
   * computed again only when one of them (compared bit for bit) or the policy changed, as {@code
   * size_shares} does in the Lua twin: the same expressions on the same operands, so the same bits
   * as computing them at every step.
   */
  private void sizeShares() {
    if (sized) {
      boolean same = true;
      for (int k = 0; k < classes && same; k++) {
        same =
            activeQueues[k] == sizedQueues[k]
                && Double.doubleToRawLongBits(weightSum[k]) == sizedWeightSum[k];
      }
      if (same) {
        return;
      }
    }
    double activeWeight = 0;
    for (int k = 0; k < classes; k++) {
      classWeighted[k] = classWeight[k] * weightSum[k];
      if (activeQueues[k] > 0) {
        activeWeight += classWeighted[k];
      }
    }
    for (int k = 0; k < classes; k++) {
      shareOfRate[k] =
          activeQueues[k] > 0
              ? classWeighted[k] / activeWeight
              : classWeight[k] / (activeWeight + classWeight[k]);
      for (int d = 0; d < dims; d++) {
        double share = shareOfRate[k] * rate[d];
        classShare[k][d] = share;
        classCap[k][d] = max(largest[d], share * horizon);
      }
      sizedQueues[k] = activeQueues[k];
      sizedWeightSum[k] = Double.doubleToRawLongBits(weightSum[k]);
    }
    sized = true;
  }

  /**
   * Strict mode, dimension {@code d}: each class, highest first, may use what the classes above it
   * leave; a hungry class leaves nothing, a satisfied one leaves what it does not use.
   */
  private void strictShares(int d) {
    double left = rate[d];
    for (int k = 0; k < classes; k++) {
      effective[k][d] = left;
      if (activeQueues[k] > 0) {
        left = hungry[k][d] ? 0 : max(0, left - classUse[k][d]);
      }
    }
  }

  /**
   * Creates the queue when {@code found} (admit's lookup of it) is null, else refills it, and
   * replaces its contribution to the class sums with one based on this call's cost (whose dominant
   * share is {@code sigma}) and its current level.
   */
  private Queue touch(
      long now,
      String tenant,
      int k,
      double[] cost,
      double sigma,
      boolean paying,
      @Nullable Queue found) {
    Queue q = found;
    boolean fresh = q == null;
    if (q == null) {
      q = new Queue(tenant, k, dims);
      q.lastMicros = now;
      queues[k].put(tenant, q);
      activeQueues[k]++;
      q.level = Double.POSITIVE_INFINITY;
    } else {
      refill(now, q);
      withdraw(q);
    }
    q.lastSeen = max(q.lastSeen, now);
    q.seq = ++touches;
    if (fresh) {
      bySeen.add(q);
    } else {
      bySeen.reorder(q);
    }

    q.weight = namedWeights ? policy.tenantWeight(tenant) : defaultWeight;
    if (sigma > 0) {
      for (int d = 0; d < dims; d++) {
        q.contribution[d] = q.weight * cost[d] / sigma;
      }
    }
    q.capped = fresh || (q.level >= SATISFIED_FRACTION * q.capacity && now >= q.waitingUntil);
    contribute(q);
    // Within its share: it would still bank half its capacity once this call has paid, and its own
    // share has not deferred it within the horizon. A queue whose horizon of share is less than
    // one call (many tenants, one call each) never is: every call it makes uses its share.
    // A queue that a line deferred within the horizon while it used at least half its equal split
    // of the class is using its share too, though its L3 banks: the lines, not L3, pace it.
    double after = q.level - (paying ? sigma : 0);
    double equalSplit = equalSplitRate(k);
    boolean served = dominantUse(q) >= SATISFIED_FRACTION * q.weight * equalSplit;
    boolean pacedByLines = now - q.linedAt <= horizonMicros && served;
    q.satisfied =
        fresh
            || (after >= SATISFIED_FRACTION * q.capacity
                && now - q.deferredAt > horizonMicros
                && !pacedByLines);
    q.rate = q.weight * equalisationRate(k, equalSplit);
    q.capacity = max(sigma, q.rate * horizon);
    q.level = min(q.level, q.capacity);
    return q;
  }

  /**
   * The dominant-share rate per unit of tenant weight if class {@code k}'s effective rate were
   * split among all its active queues by their demand ({@code min_d eff_k,d / Σ D_k,d}); infinite
   * when the class has no demand.
   */
  private double equalSplitRate(int k) {
    double all = Double.POSITIVE_INFINITY;
    for (int d = 0; d < dims; d++) {
      if (allDemand[k][d] > 0) {
        all = min(all, effective[k][d] / allDemand[k][d]);
      }
    }
    return all;
  }

  /** A queue's admitted rate in dominant share per second: {@code max_d use_d / r_d}. */
  private double dominantUse(Queue q) {
    double use = 0;
    for (int d = 0; d < dims; d++) {
      use = max(use, q.use[d] / rate[d]);
    }
    return use;
  }

  /**
   * {@code X*_k}: the dominant-share rate per unit of tenant weight in class {@code k}, given its
   * {@code equalSplitRate} {@code all}.
   */
  private double equalisationRate(int k, double all) {
    double hungry = Double.POSITIVE_INFINITY;
    for (int d = 0; d < dims; d++) {
      if (hungryDemand[k][d] > 0) {
        hungry = min(hungry, max(0, effective[k][d] - satisfiedUse[k][d]) / hungryDemand[k][d]);
      }
    }
    if (all == Double.POSITIVE_INFINITY) {
      return 1 / horizon;
    }
    return hungry == Double.POSITIVE_INFINITY ? all : max(all, hungry);
  }

  private void refill(long now, Queue q) {
    long last = q.lastMicros;
    double dt = now > q.lastMicros ? (now - q.lastMicros) / 1e6 : 0;
    q.lastMicros = max(q.lastMicros, now);
    if (dt > 0) {
      q.level = min(q.capacity, q.level + q.rate * dt);
      double decay = decay(now - last, dt);
      for (int d = 0; d < dims; d++) {
        q.use[d] *= decay;
      }
    }
  }

  /**
   * {@code exp(−dt / H)}, the usage averages' decay over {@code dt} seconds, which are {@code
   * micros} µs ({@code dt == micros / 1e6}). Steps come microseconds apart when calls are frequent,
   * so the decay of each gap below {@link #DECAY_MEMO} µs is computed once per share horizon and
   * kept ({@code decays}, reset by {@link #configure}): the same expression on the same operands,
   * so the same bits as computing it each time.
   */
  private double decay(long micros, double dt) {
    if (micros >= DECAY_MEMO) {
      return Math.exp(-dt / horizon);
    }
    int i = (int) micros;
    double kept = decays[i];
    if (kept == 0) {
      kept = Math.exp(-dt / horizon);
      decays[i] = kept;
    }
    return kept;
  }

  private void contribute(Queue q) {
    int k = q.priority;
    for (int d = 0; d < dims; d++) {
      allDemand[k][d] += q.contribution[d];
      if (q.capped) {
        satisfiedUse[k][d] += q.use[d];
      } else {
        hungryDemand[k][d] += q.contribution[d];
      }
    }
    if (q.capped) {
      satisfiedQueues[k]++;
    }
    weightSum[k] += q.weight;
  }

  private void withdraw(Queue q) {
    int k = q.priority;
    for (int d = 0; d < dims; d++) {
      allDemand[k][d] = max(0, allDemand[k][d] - q.contribution[d]);
      if (q.capped) {
        satisfiedUse[k][d] = max(0, satisfiedUse[k][d] - q.use[d]);
      } else {
        hungryDemand[k][d] = max(0, hungryDemand[k][d] - q.contribution[d]);
      }
    }
    if (q.capped) {
      satisfiedQueues[k]--;
    }
    weightSum[k] = max(0, weightSum[k] - q.weight);
  }

  /**
   * Queues not seen for longer than the idle TTL (a deferred call counts as seen until its turn)
   * leave the sums, in touch order.
   */
  private void evictIdle(long now) {
    if (bySeen.isEmpty() || now - bySeen.first().lastSeen <= idleTtlMicros) {
      return;
    }
    List<Queue> gone = new ArrayList<>();
    while (!bySeen.isEmpty() && now - bySeen.first().lastSeen > idleTtlMicros) {
      gone.add(bySeen.pollFirst());
    }
    gone.sort(Comparator.comparingLong(q -> q.seq));
    for (Queue q : gone) {
      withdraw(q);
      queues[q.priority].remove(q.tenant);
      q.left = true;
      if (--activeQueues[q.priority] == 0) {
        for (int d = 0; d < dims; d++) {
          allDemand[q.priority][d] = 0;
          hungryDemand[q.priority][d] = 0;
          satisfiedUse[q.priority][d] = 0;
        }
        weightSum[q.priority] = 0;
      }
    }
  }

  /**
   * A queue's last outstanding call was released (or expired): it counts as last seen one share
   * horizon short of the idle TTL ago, so it leaves the sums one share horizon from now unless it
   * calls again. Calls a little apart keep their queue; a finished one hands its share over within
   * {@code H}, whatever the idle TTL.
   */
  private void released(long now, Queue q) {
    long seen = now - max(0, idleTtlMicros - horizonMicros);
    if (seen < q.lastSeen) {
      q.lastSeen = seen;
      bySeen.reorder(q);
    }
  }

  /** Keeps a queue whose call waits until {@code until} (µs) active for an idle TTL after it. */
  private void seenUntil(Queue q, long until) {
    if (until > q.lastSeen) {
      q.lastSeen = until;
      bySeen.reorder(q);
    }
  }

  /** The idle-eviction order: by last seen, then by touch order. */
  private static int seenOrder(Queue a, Queue b) {
    int bySeen = Long.compare(a.lastSeen, b.lastSeen);
    return bySeen != 0 ? bySeen : Long.compare(a.seq, b.seq);
  }

  /** Live view for metrics and the admin command. */
  @Override
  public Snapshot snapshot() {
    double[][] levels = new double[classes][];
    double[][] use = new double[classes][];
    for (int k = 0; k < classes; k++) {
      levels[k] = classLevel[k].clone();
      use[k] = classUse[k].clone();
    }
    return new Snapshot(lastMicros, global.clone(), levels, use, activeQueues.clone());
  }

  /** The L3 state of one queue as of its last step, or null when the queue is not active. */
  @Override
  public @Nullable QueueState queue(String tenant, int k) {
    Queue q = queues[k].get(tenant);
    return q == null ? null : new QueueState(q.level, q.capacity, q.rate, q.weight, q.lastMicros);
  }

  /**
   * A call's place in its queue's line: the share it paid into L3 at its first attempt and the time
   * its turn comes. A deferred call keeps its booking for the retry. Once its grant is released
   * nothing refers to it any more, and the gate hands it to a later call ({@link #reuse}) instead
   * of allocating a new one.
   */
  static final class Booking {
    String tenant;
    int priority;
    boolean paid;

    /**
     * Whether its turn is a slot a line gave it (its class's or light line), not only its L3 turn.
     */
    boolean lined;

    /**
     * Whether it came back at that slot, found its capacity taken, and counts in {@code overdue}.
     */
    boolean overdue;

    /** How many times it came back at or after its slot and found the capacity taken. */
    int placesKept;

    double paidShare;

    /** {@link FairRule}: the start tags it paid at, class and queue, and whether its class paid. */
    double classStart;

    boolean classPaid;

    double queueStart;

    long readyAt;
    long expiresAt;
    double[] estimate;
    final double[] paced;
    double[] debit;
    SlidingWindow.Entry[] entries;

    /** The queue of its last attempt (null before the first). */
    private @Nullable Queue queue;

    @SuppressWarnings("NullAway.Init") // estimate, debit and entries are set at the first admit
    Booking(String tenant, int priority, int dims) {
      this.tenant = tenant;
      this.priority = priority;
      this.paced = new double[dims];
    }

    /**
     * Makes this booking, whose grant was released, the fresh booking of a call of {@code tenant}
     * in class {@code priority}: as the constructor leaves one, keeping its arrays.
     */
    void reuse(String tenant, int priority) {
      this.tenant = tenant;
      this.priority = priority;
      paid = false;
      lined = false;
      overdue = false;
      placesKept = 0;
      paidShare = 0;
      classStart = 0;
      classPaid = false;
      queueStart = 0;
      readyAt = 0;
      expiresAt = 0;
      queue = null;
      if (entries != null) {
        Arrays.fill(entries, null);
      }
    }
  }

  /**
   * State at the last step (at {@code micros}): L1 level per dimension; per class, L2 level and
   * admitted rate (the usage average, units per second); active queues per class.
   */
  record Snapshot(
      long micros,
      double[] global,
      double[][] classLevels,
      double[][] classUse,
      int[] activeQueues) {}

  /** One active {@code (tenant, class)} queue. */
  private static final class Queue extends SeenHeap.Member {
    final String tenant;
    final int priority;
    final double[] contribution;
    final double[] use;
    final double[] correction;
    double weight;
    double level;
    double capacity = Double.POSITIVE_INFINITY;
    double rate;

    /**
     * Banks at least half its capacity and has no call waiting for its turn: counted by its use
     * ({@code U_k,d}), not its demand.
     */
    boolean capped;

    /** Capped, not deferred within the share horizon, not paced by the lines: within its share. */
    boolean satisfied;

    long lastMicros;
    long lastSeen;
    long seq;
    long deferredAt = Long.MIN_VALUE / 2;

    /** When a line (its class's or light line) last deferred one of its calls (µs). */
    long linedAt = Long.MIN_VALUE / 2;

    /**
     * Its calls in flight (admitted, not released) plus its calls waiting with a booking; when it
     * falls to zero the queue is due to leave one share horizon later (see {@code released}).
     */
    int outstanding;

    /** The latest turn of its deferred calls (µs): until then a call of it waits, not capped. */
    long waitingUntil = Long.MIN_VALUE / 2;

    /** The releases its correction has learnt from, counted up to LEARNING_RELEASES. */
    int releases;

    /** Whether it has left the sums (idle eviction): no longer the tenant's queue in the map. */
    boolean left;

    Queue(String tenant, int priority, int dims) {
      this.tenant = tenant;
      this.priority = priority;
      this.contribution = new double[dims];
      this.use = new double[dims];
      this.correction = new double[dims];
    }
  }

  /**
   * The smaller of two doubles, compared once, as the Lua script compares them: the same value as
   * {@link Math#min(double, double)} for every operand the rule produces (never {@code NaN}, and a
   * signed zero never divides).
   */
  private static double min(double a, double b) {
    return b < a ? b : a;
  }

  /** The larger of two doubles, compared once; see {@link #min(double, double)}. */
  private static double max(double a, double b) {
    return b > a ? b : a;
  }

  @SuppressWarnings("UnusedMethod") // min and max come as a set, for int, long and double
  private static long min(long a, long b) {
    return Math.min(a, b);
  }

  private static long max(long a, long b) {
    return Math.max(a, b);
  }

  private static int min(int a, int b) {
    return Math.min(a, b);
  }

  @SuppressWarnings("UnusedMethod") // min and max come as a set, for int, long and double
  private static int max(int a, int b) {
    return Math.max(a, b);
  }
}
