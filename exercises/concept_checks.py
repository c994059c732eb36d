# Your answers: replace every `= None` with your answer, in the format its comment gives.
# Answers are graded when your work is graded; the feedback explains every miss.
# Generated from the course's reference solutions by `grader stubs`.
"""Concept checks for "Policy gradients: from REINFORCE to PPO".

Answer each question by replacing ``None`` with your answer, written exactly in
the format its comment gives (a tuple of booleans, a set of option numbers, a
string label, a dict of flags, or numbers). Python expressions are fine:
``4 / 3`` is a number. Work the numeric questions by hand or with numpy in a
scratch cell; only the constants of this file are graded.

Partial credit: every question is split into parts of equal weight (one per
statement, item, key or number). In a multiple-select question a wrong pick
cancels a right one, so selecting every option earns nothing. An answer that is
still ``None`` or not in the stated format earns nothing for that question and
comes back with a message saying what was expected. After grading, the feedback
explains each part you missed.
"""

# ---------------------------------------------------------------------------------------
# 1. The score-function identity
#    grad_theta E_{X ~ p_theta}[f(X)] = E[f(X) grad_theta log p_theta(X)].
#    Which statements are correct?
#      1. It makes the sampling step itself differentiable, so gradients flow through
#         the discrete draw of X.
#      2. After applying it, f is only needed at the sampled outcomes; its derivative
#         never appears.
#      3. With it, one sample gives the exact gradient, free of Monte Carlo noise.
#      4. The reward f may be computed by an external program or a human rater; what
#         must be differentiable is log p_theta of the sampled outcome.
#      5. It holds for every parametric family, with no further conditions.
score_identity_correct = None  # your answer: a set of the option numbers (1 to 5) that apply, written {a, b, ...}, or set() for none

# ---------------------------------------------------------------------------------------
# 2. Now the integrand depends on theta as well: we want grad_theta E_{X ~ p_theta}[f_theta(X)].
#    True or false?
#      1. The gradient is E[f_theta(X) grad log p_theta(X)] + E[grad_theta f_theta(X)]: a score
#         term plus a term for f_theta's own change while the outcome is held fixed.
#      2. Because X is drawn from p_theta, the score term alone is already the whole gradient.
#      3. Classical REINFORCE assumes that the environment's reward does not depend on the
#         policy parameters directly.
#      4. Stopping the gradient of a differentiable KL penalty (computed from the current
#         policy) leaves the optimised objective unchanged; it only saves computation.
direct_dependence_statements = None  # your answer: a tuple of 4 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 3. REINFORCE writes the trajectory gradient with policy scores grad log pi_theta(a_t | s_t)
#    only, without any derivative of the transition probabilities. True or false?
#      1. With a fixed simulator, whose transition probabilities do not depend on theta,
#         this form is the exact score-function gradient.
#      2. It stays exact when the transition model P_theta(s' | s, a) shares parameters
#         theta with the policy.
#      3. A frozen reward model, never differentiated, can supply the rewards, and its
#         outputs still decide the direction of the update.
#      4. When we backpropagate through a differentiable world model (a pathwise gradient),
#         the transition derivatives can be left out just as in REINFORCE.
#      5. Since a fixed simulator's log-probabilities have zero derivative in theta, the
#         environment has no influence on the gradient estimate.
reinforce_transition_cases = None  # your answer: a tuple of 5 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 4. In the weight that multiplies grad log pi_theta(a_t | s_t), which rewards can be
#    dropped without changing the expected gradient?
#      "a"  the rewards r_0 ... r_(t-1), received before a_t was chosen
#      "b"  the reward r_t that follows a_t
#      "c"  the rewards after step t
#      "d"  none: every reward of the episode has to stay
past_reward_weight = None  # your answer: one of the strings 'a', 'b', 'c', 'd'

# ---------------------------------------------------------------------------------------
# 5. The objective is literally J = E[sum_t gamma^t r_t]. One episode has rewards
#    (1, 2, 3) and gamma = 0.5. Give the weights multiplying grad log pi(a_t | s_t)
#    for t = 0, 1, 2, in the single-episode estimate of grad J.
literal_discount_weights = None  # your answer: a tuple of 3 numbers (t0, t1, t2), graded within 0.001

# ---------------------------------------------------------------------------------------
# 6. A baseline b is subtracted from the reward that multiplies the score of the current
#    action (or response). Label each choice of b "unbiased" (the expected gradient is
#    unchanged), "biased" (it changes, and the usual proof does not apply) or "scaled" (it
#    is multiplied by a known factor):
#      1. a constant
#      2. a learned state value V(s_t)
#      3. the mean reward of the other G - 1 responses to the same prompt
#      4. a learned action value Q(s_t, a_t) of the action taken
#      5. the mean reward of the whole group of G responses, the current one included
baseline_validity = None  # your answer: a tuple of 5 strings, item 1 first, each one of 'unbiased', 'biased', 'scaled'

# ---------------------------------------------------------------------------------------
# 7. Group baselines for G responses to one prompt. True or false?
#      1. The same-group mean is correlated with the current response's score because it
#         contains that response's own reward divided by G.
#      2. Given the prompt, the leave-one-out mean does not depend on the current response,
#         which makes the expected value of (baseline x score) zero.
#      3. If every response of a group gets the same reward, the RLOO advantages are zero
#         but the centred advantages R_i - mean(R) are not.
#      4. Each RLOO advantage equals G / (G - 1) times the centred advantage of the same
#         response.
group_baseline_statements = None  # your answer: a tuple of 4 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 8. Groups have G = 8 responses and the baseline is the mean reward of the same group,
#    the current response included. By what factor is the expected policy gradient
#    multiplied?
same_group_scale = None  # your answer: a number, graded within 0.001

# ---------------------------------------------------------------------------------------
# 9. One group of four responses has rewards (2, 0, 1, 5). Give the leave-one-out (RLOO)
#    advantages R_i - mean of the other three, in the same order.
rloo_advantages = None  # your answer: a tuple of 4 numbers (response_1, response_2, response_3, response_4), graded within 0.001

# ---------------------------------------------------------------------------------------
# 10. GAE, case I. A wrapper stops an episode at a time limit (the task itself could go
#     on), and the collector calls reset(); the next record of the array starts a new
#     episode. For the last transition before the reset:
#       "bootstrap":           should its TD target use gamma * V(final observation)?
#       "recursion_continues": should the GAE recursion carry the next record's advantage
#                              back into this one?
#       "terminated":          the value of its terminated flag
#       "trace_cut":           the value of its trace_cut flag
truncation_reset_flags = None  # your answer: a dict with the keys 'bootstrap', 'recursion_continues', 'terminated', 'trace_cut', each True or False

# ---------------------------------------------------------------------------------------
# 11. GAE, case II. A rollout buffer of fixed length ends in the middle of an episode; the
#     episode goes on in the next buffer, which a separate GAE call processes. The same four
#     questions for the buffer's last record.
buffer_boundary_flags = None  # your answer: a dict with the keys 'bootstrap', 'recursion_continues', 'terminated', 'trace_cut', each True or False

# ---------------------------------------------------------------------------------------
# 12. An implementation keeps a single done flag and zeroes the bootstrap at every done,
#     time-limit truncations included. Compared with the correct target, is its target at a
#     truncated step "higher", "lower" or "unchanged"
#       1. when the value of the final observation is positive?
#       2. when that value is negative?
single_done_flag_bias = None  # your answer: a tuple of 2 strings, item 1 first, each one of 'higher', 'lower', 'unchanged'

# ---------------------------------------------------------------------------------------
# 13. The lab's example: rewards (1, 100), values (2, 0), next values (10, 0),
#     terminated (False, True), trace cuts (True, True), gamma = 0.9, lambda = 1.
#     Record 0 ends at a buffer cut and record 1 is terminal. Give the GAE advantages
#     (A_0, A_1).
lab_gae_advantages = None  # your answer: a tuple of 2 numbers (record_0, record_1), graded within 0.001

# ---------------------------------------------------------------------------------------
# 14. PPO with clip epsilon = 0.2: to which interval (low, high) is the probability ratio
#     clipped?
ppo_clip_interval = None  # your answer: a tuple of 2 numbers (low, high), graded within 0.001

# ---------------------------------------------------------------------------------------
# 15. Four rows with probability ratios r = (1.5, 0.5, 1.5, 0.5), advantages
#     A = (2, 1, -1, -2) and epsilon = 0.2. Give, in this order:
#       the fraction of ratios outside the clip interval (ratio_outside_fraction),
#       the fraction of rows where clipping changes min(r A, clip(r) A) (active_clip_fraction),
#       the mean of the pessimistic terms min(r A, clip(r) A),
#       the non-negative approximate KL, the mean of (r - 1) - log r.
ppo_worked_example = None  # your answer: a tuple of 4 numbers (ratio_outside_fraction, active_clip_fraction, mean_objective, approx_kl), graded within 0.001

# ---------------------------------------------------------------------------------------
# 16. The approximate KL diagnostic mean((r - 1) - log r), with r = pi_new / pi_old on
#     actions sampled from the old policy. True or false?
#       1. Each term (r - 1) - log r is non-negative.
#       2. Its expectation under the old policy equals KL(pi_old || pi_new), given the
#          usual support conditions. (The module's text calls this the reverse KL: the
#          sampling policy pi_old first, as opposed to KL(pi_new || pi_old).)
#       3. A small value on a batch guarantees that the update stayed inside a KL trust
#          region.
#       4. PPO's clipping keeps the new policy within a fixed KL distance of the old one.
approx_kl_statements = None  # your answer: a tuple of 4 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 17. Basic RLOO and canonical GRPO. Label each feature "both", "rloo", "grpo" or
#     "neither":
#       1. samples several responses to the same prompt
#       2. trains a separate critic (value network)
#       3. the baseline of a response is the mean reward of the other responses
#       4. optimises PPO-style probability ratios with clipping
#       5. usually divides the group-centred rewards by the group's standard deviation
#       6. adds a regularisation term toward a reference policy
#       7. a response's learning signal is relative to the other responses of its group
rloo_grpo_features = None  # your answer: a tuple of 7 strings, item 1 first, each one of 'both', 'rloo', 'grpo', 'neither'

# ---------------------------------------------------------------------------------------
# 18. One advantage per response, broadcast to its tokens. True or false?
#       1. A response's log-probability is the sum of its tokens' log-probabilities, so one
#          coefficient times that sum is the score-function term of the whole response.
#       2. Giving every token of a response the same advantage tells the update which token
#          caused the reward.
#       3. All tokens of a response get the same coefficient, whatever they contributed.
#       4. Broadcasting the response's advantage optimises a different objective than the
#          expected reward of whole responses.
sequence_credit_statements = None  # your answer: a tuple of 4 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 19. In the tokenwise policy loss of a generated response, which label positions must the
#     response mask keep?
#       1. the prompt tokens
#       2. the generated response tokens before EOS
#       3. the EOS token that the policy generated
#       4. PAD tokens
#       5. tokens stored after the first generated EOS
policy_loss_tokens = None  # your answer: a set of the option numbers (1 to 5) that apply, written {a, b, ...}, or set() for none

# ---------------------------------------------------------------------------------------
# 20. The lab's batch, PAD id 0 and EOS id 2, the generated EOS included:
#       row 1: input_ids (1, 10, 11, 20, 21, 2, 0), prompt length 3 (BOS and two prompt tokens)
#       row 2: input_ids (1, 12, 30, 2, 0, 0, 0), prompt length 2
#     The mask is aligned with the labels input_ids[:, 1:], because the logits at position k
#     score the token at position k + 1. Give the mask: two rows of six 0/1 numbers.
response_mask_rows = None  # your answer: a tuple of 2 rows (row_1, row_2), each of 6 numbers, graded within 0.001

# ---------------------------------------------------------------------------------------
# 21. A softmax policy over three actions has logits z = (2, 1, 0). Give the score
#     grad_z log pi(a) of action a = 2 (counting from 0, so the third action).
score_vector_action_2 = None  # your answer: a tuple of 3 numbers (dz_0, dz_1, dz_2), graded within 0.001

# ---------------------------------------------------------------------------------------
# 22. One state, two actions with probabilities pi = (0.8, 0.2) (softmax of the logits
#     (log 4, 0)). Give the score g(a) = grad_z log pi(a) with respect to the logits for
#     action 1 and for action 2, then their squared norms (|g(1)|^2, |g(2)|^2).
optimal_baseline_scores = None  # your answer: a tuple of 3 rows (score_action_1, score_action_2, squared_norms), each of 2 numbers, graded within 0.001

# ---------------------------------------------------------------------------------------
# 23. The same state, with action values Q = (1, 10). Give (V, b*): the state value and
#     the constant baseline that minimises the variance of the score-function estimate,
#     b* = E[|g|^2 Q] / E[|g|^2] with g the score of question 22.
optimal_baseline_values = None  # your answer: a tuple of 2 numbers (value, b_star), graded within 0.001

# ---------------------------------------------------------------------------------------
# 24. About the reference code of the module. True or false?
#       1. Subtracting max(z) from the logits before exponentiating changes the softmax
#          probabilities slightly; that is the price of avoiding overflow.
#       2. The rewards-to-go of a length-T episode take O(T) time with one backward pass.
#       3. The course's group z-score divides by the population standard deviation of the
#          group (denominator G).
#       4. active_clip_fraction and ratio_outside_fraction always agree, since both ask
#          whether the ratio left the clip interval.
implementation_notes = None  # your answer: a tuple of 4 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 25. The lab notebook's takeaway: "advantages used by the actor loss need an explicit
#     detach contract". True or false?
#       1. In the actor loss, each advantage is a fixed coefficient of grad log pi(a|s): no
#          gradient may flow through it, e.g. into the critic that computed it.
#       2. Suppose the actor loss's gradient can reach the critic's weights (the two share a
#          trunk, or one optimiser steps on the sum of the actor and critic losses). Then, if
#          the advantages were left attached to the critic, minimising the actor loss would
#          also move the value function, toward values that make the surrogate look better
#          rather than toward the returns.
#       3. Detaching the advantages biases the policy-gradient estimate, because the
#          gradient of the advantage with respect to the policy is then left out.
detach_statements = None  # your answer: a tuple of 3 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 26. The rewards-to-go G_t of a length-T episode, computed as the module does: one backward
#     pass with a running sum, G_t = r_t + gamma * G_(t+1), each written into the result array.
#     Label each cost "constant", "linear" or "quadratic" in T:
#       1. its running time
#       2. the storage it needs beyond the result array
backward_pass_costs = None  # your answer: a tuple of 2 strings, item 1 first, each one of 'constant', 'linear', 'quadratic'

# ---------------------------------------------------------------------------------------
# 27. GAE, case II again: a rollout buffer ends in the middle of an episode that goes on in
#     the next buffer. True or false?
#       1. When the next buffer is processed by a separate GAE call, the buffer's last record
#          gets trace_cut=True, although its episode has not ended.
#       2. A streaming implementation that carries the recursion state from one fragment to
#          the next could let the recursion continue across the boundary instead of cutting it.
#       3. When the recursion is cut there, the last record's advantage is r - V(s): with no
#          next record in the array, there is nothing to bootstrap from.
streaming_gae_statements = None  # your answer: a tuple of 3 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 28. REINFORCE for a softmax policy pi = softmax(z), rewarded by a verifier that cannot be
#     differentiated. True or false?
#       1. The score-function estimate needs only the reward of each sampled outcome and the
#          gradient of its log-probability, so the verifier's reward can be used as it is.
#       2. Writing the logits as z = 2 * theta and taking the gradient with respect to theta
#          leaves the variance of the estimate unchanged, because the policy assigns the same
#          probabilities at the corresponding parameters.
#       3. With the policy and its parameterisation fixed, the variance still depends on the
#          baseline subtracted from the reward.
#       4. The variance-minimising constant baseline b* weights each action value by the
#          squared norm of that action's score vector, so a rare action, whose score vector
#          is larger, counts for more in b* than in V = E[Q].
reinforce_variance_statements = None  # your answer: a tuple of 4 booleans (True or False), statement 1 first

# ---------------------------------------------------------------------------------------
# 29. Reading the lab's curves: PPO on CartPole over a few seeds, and the tiny language
#     policy's run. True or false?
#       1. A rising evaluation curve from one well-chosen seed establishes that the
#          implementation is robust.
#       2. A meaningful comparison of two methods requires aligned budgets (the same number of
#          environment steps), several seeds, and a summary of the uncertainty across them,
#          such as the interquartile range over seeds that the lab plots.
#       3. A successful smoke run shows that collection, targets, repeated optimisation and
#          evaluation work together: it validates the code, not how the method scales.
#       4. A policy that reaches 500 on CartPole shows how PPO will behave when post-training
#          a large language model.
#       5. The approximate KL and the clip fractions of one run are thresholds that carry
#          over to other problems.
evaluation_protocol_statements = None  # your answer: a tuple of 5 booleans (True or False), statement 1 first
