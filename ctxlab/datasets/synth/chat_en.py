"""English chat topics: an opening, a first answer and follow-up exchanges per topic.

Slots are filled by ``chat.py`` (names, places, numbers it computes so that the
arithmetic in the answers is right). ``⟦kind:text⟧`` marks chat facts.
"""

from __future__ import annotations

SYSTEMS_EN = (
    "You are a helpful, concise assistant. Use Markdown when it helps readability.",
    "You are a friendly assistant. Answer clearly; ask a clarifying question when the request is ambiguous.",
    "You are an expert assistant. Be accurate, show your reasoning for calculations, and keep answers focused.",
)

TOPICS_EN: dict[str, dict] = {
    "cooking": {
        "open": ("Hi! I'm ⟦name:«name»⟧. I'm hosting dinner for ⟦number:«n» people⟧ on Saturday and one guest is "
                 "vegetarian. Can you suggest a main course that works for everyone and can be prepped ahead?",
                 "I need a make-ahead vegetarian main for ⟦number:«n» people⟧. My oven is small and I only have about "
                 "⟦number:«mins» minutes⟧ on the day."),
        "answer": ("Great occasion! A **«dish»** works well: it is hearty enough for meat-eaters, fully vegetarian, "
                   "and most of the work happens the day before.\n\n**For «n» people you'll need roughly:**\n- «veg_g» "
                   "g mixed vegetables\n- «grain_g» g «grain»\n- 2 onions, 4 garlic cloves, fresh "
                   "herbs\n\n**Plan:**\n1. *Friday:* prepare the filling and let it cool completely, then "
                   "refrigerate.\n2. *Saturday, «mins» minutes before serving:* assemble and bake at 200 °C.\n3. Rest "
                   "it 10 minutes before slicing.\n\nServe with a crisp green salad and something acidic (pickled red "
                   "onions) to cut the richness."),
        "pairs": (
            ("One guest is allergic to nuts. Is that a problem?",
             "Good to check. The recipe itself doesn't need nuts: skip any nut-based topping and use toasted sunflower "
             "seeds or breadcrumbs for crunch. Also check labels on stock cubes and pesto, which sometimes contain "
             "nuts, and keep a separate spoon for serving."),
            ("What dessert would go with it?",
             "Something light and cold balances a rich main: a lemon posset (three ingredients, made the day before) "
             "or roasted plums with yogurt and honey. Both scale easily to «n» people and free up the oven."),
            ("Can I freeze the leftovers?",
             "Yes. Cool the leftovers within two hours, portion them, and freeze for up to 3 months. Reheat from "
             "frozen at 180 °C, covered with foil, for about 35-40 minutes, then uncover for the last 10 so the top "
             "crisps."),
            ("How much wine should I buy?",
             "A common rule of thumb is half a bottle per adult for a long dinner. For «n» guests that's about "
             "«bottles» bottles; buy one extra of whichever is more popular and a good non-alcoholic option."),
        ),
    },
    "travel": {
        "open": ("I'm planning ⟦number:«days» days⟧ in ⟦place:«city»⟧ in «month» with a budget of about "
                 "⟦number:«budget» euros⟧ (excluding flights). Could you sketch an itinerary?",
                 "My partner and I have ⟦number:«days» days⟧ in ⟦place:«city»⟧. We like food and walking, not museums "
                 "so much. What would you do?"),
        "answer": ("Here's a relaxed «days»-day plan for **«city»**:\n\n**Day 1:** settle in, walk around and have "
                   "dinner near your accommodation. Evening: «sight1».\n**Day 2:** morning at «sight2», long lunch, "
                   "afternoon wandering without a plan.\n**Day 3:** «sight3», then a food market or cooking "
                   "class.\n\nThe remaining days are for a day trip and whatever you liked most. Budget-wise, «budget» "
                   "euros over «days» days is about «per_day» euros per day, which is comfortable for mid-range "
                   "accommodation, public transport and one nice dinner."),
        "pairs": (
            ("Is «month» a good time to go?",
             "«month» is usually fine. Check local holidays, because prices jump and popular sights get crowded; "
             "booking the first time slot of the day for «sight2» helps either way."),
            ("How should we get around?",
             "Public transport plus walking covers almost everything. Get a rechargeable transit card on day one; "
             "taxis or ride-hailing make sense late at night or with luggage."),
            ("Any tips for saving money?",
             "Eat your main meal at lunch (set menus are much cheaper), buy breakfast at a bakery or market, and check "
             "which sights have a free day. Those three habits alone can save 15-20% of a «per_day»-euro daily "
             "budget."),
            ("Can you summarise the plan in a table?",
             "| Day | Morning | Afternoon | Evening |\n|---|---|---|---|\n| 1 | Arrive | Walk the centre | «sight1» |\n"
             "| 2 | «sight2» | Long lunch | Free |\n| 3 | «sight3» | Food market | Dinner out |"),
        ),
    },
    "math": {
        "open": ("Can you help me solve ⟦number:«a»x + «b» = «c»⟧? I keep getting a different answer than the book.",
                 "I'm helping my kid with homework: ⟦number:«a»x + «b» = «c»⟧. How do I explain the steps?"),
        "answer": ("Sure. The idea is to get x alone on one side.\n\n1. Subtract «b» from both sides: «a»x = «c» − «b» "
                   "= «cb».\n2. Divide both sides by «a»: x = «cb» / «a» = **«x»**.\n\nCheck: «a» × «x» + «b» = «ax» + "
                   "«b» = «c». ✓\n\nA common mistake is dividing before subtracting; do the additions and subtractions "
                   "first."),
        "pairs": (
            ("What if it were «a»x + «b» = 2x + «c»?",
             "Move the x terms to one side first: «a»x − 2x = «c» − «b», so «a2»x = «cb», and x = «cb» / «a2»«frac»."),
            ("And a percentage question: what is «pct»% of «base»?",
             "«pct»% of «base» = «base» × «pct» / 100 = **«pct_val»**. A quick sanity check: 10% of «base» is «tenth», "
             "so «pct»% should be about «pct_tenths» times that."),
            ("What's the area of a circle with radius «r» cm?",
             "A = π r² = π × «r»² = π × «r2» ≈ **«area» cm²** (using π ≈ 3.14159)."),
            ("Thanks! Can you give me one practice problem?",
             "Try this one: 4x − 9 = 2x + 7. (Hint: first move the x terms, then the numbers. The answer is x = 8.)"),
        ),
    },
    "writing-email": {
        "open": ("I need to email my landlord, ⟦name:«other»⟧, about a heating problem that has lasted "
                 "⟦number:«days» days⟧. Polite but firm, please.",),
        "answer": ("Subject: Heating not working since «weekday», repair needed\n\nDear «other»,\n\nI'm writing about "
                   "the heating in my flat, which has not worked for «days» days now. I reported it by phone on "
                   "«weekday» but haven't heard back about a repair date.\n\nWith the current temperatures this is "
                   "affecting daily life, so I'd be grateful if you could arrange for an engineer to visit within the "
                   "next 48 hours and confirm the appointment by email.\n\nThank you in advance, and please let me "
                   "know if you need access details.\n\nKind regards,\n[Your name]"),
        "pairs": (
            ("Should I mention my rights as a tenant?",
             "You can, but keep it factual rather than threatening in a first email, for example: \"I understand that "
             "heating is a repair the landlord is responsible for.\" Keep a copy of every message and note the dates."),
            ("Can you make it a bit shorter?",
             "Dear «other», the heating has not worked for «days» days. Could you please arrange a repair within 48 "
             "hours and confirm the date by email? Thank you. Kind regards, [Your name]"),
            ("What if he doesn't answer?",
             "Wait two working days, then send a short follow-up referencing your first email and the date. If there "
             "is still no reply, contact your local tenant advice service; they can tell you the next formal step."),
        ),
    },
    "writing": {
        "open": ("Can you help me write a short toast for my sister ⟦name:«other»⟧'s wedding? They met in "
                 "⟦place:«city»⟧ ⟦number:«years» years⟧ ago. Warm, a little funny, under two minutes.",),
        "answer": ("Here's a draft you can adapt:\n\n---\n\nGood evening, everyone! For those who don't know me, I'm "
                   "the sibling who has known «other» the longest, and who therefore has the best stories. Don't "
                   "worry, I'll only tell one.\n\n«years» years ago, in «city», «other» called me and said: \"I met "
                   "someone, it's probably nothing.\" Well. Here we are.\n\nWhat I love about the two of you is how "
                   "you make ordinary days better. Please raise your glasses: to «other» and the best \"probably "
                   "nothing\" that ever happened!\n\n---\n\nRead aloud, that's about 90 seconds."),
        "pairs": (
            ("Can you make it a bit more emotional?",
             "Sure, add this before the final line: \"Growing up, «other» looked after everyone else first. Seeing "
             "someone finally look after «other» the same way means more to me than I can say.\" Pause after it; it "
             "lands better."),
            ("It's too long. Can you cut it in half?",
             "Short version: \"«years» years ago in «city», «other» told me she'd met someone and it was probably "
             "nothing. Here's to the best 'probably nothing' ever. To «other»!\""),
            ("Any tips for delivering it?",
             "Print it in a large font, mark where to pause, and practise it out loud three times, once in front of "
             "someone. Look up at the couple for the last line, and keep your glass in your hand, not on the table."),
        ),
    },
    "history": {
        "open": ("Can you explain ⟦event:«event»⟧ in simple terms? I have a quiz on ⟦date:«weekday»⟧.",
                 "Why was ⟦event:«event»⟧ such a big deal? Give me the key dates."),
        "answer": ("**«event»** in short:\n\n- **When:** ⟦date:«when»⟧\n- **Where:** ⟦place:«where»⟧\n- **Why it "
                   "mattered:** «why»\n\nFor a quiz, remember the date, the place and one consequence; examiners love "
                   "a clear cause-and-effect sentence."),
        "pairs": (
            ("What caused it?",
             "Historians usually point to several causes working together: economic pressure, political rivalry and "
             "new technology. For «event», the key point is that «why_short»."),
            ("Can you give me three quiz questions?",
             "1. When did «event» happen? («when»)\n2. Where did it take place? («where»)\n3. Name one consequence. "
             "(For example: «why_short».)"),
            ("Is there a good book or documentary about it?",
             "Look for a recent general history from a university press, and check your library's catalogue for "
             "documentaries; sticking to sources that cite primary documents keeps you away from myths."),
        ),
    },
    "programming-sql": {
        "open": ("How do I find the top ⟦number:«k» customers⟧ by revenue in SQL? Tables are `orders(id, customer_id, "
                 "amount)` and `customers(id, name)`.",),
        "answer": ("Join, aggregate, sort, limit:\n\n```sql\nSELECT c.id, c.name, SUM(o.amount) AS revenue\nFROM "
                   "orders o\nJOIN customers c ON c.id = o.customer_id\nGROUP BY c.id, c.name\nORDER BY revenue "
                   "DESC\nLIMIT «k»;\n```\n\nGrouping by `c.id` as well as the name keeps two customers with the same "
                   "name apart."),
        "pairs": (
            ("What about ties at the last place?",
             "Use a window function and filter on the rank:\n\n```sql\nSELECT * FROM (\n  SELECT c.name, SUM(o.amount) "
             "AS revenue,\n         RANK() OVER (ORDER BY SUM(o.amount) DESC) AS rnk\n  FROM orders o JOIN customers c "
             "ON c.id = o.customer_id\n  GROUP BY c.id, c.name\n) t\nWHERE rnk <= «k»;\n```"),
            ("Can I restrict it to last year?",
             "Add a date filter before grouping, e.g. `WHERE o.created_at >= DATE '2023-01-01' AND o.created_at < DATE "
             "'2024-01-01'` (assuming an `orders.created_at` column). Half-open ranges avoid end-of-day bugs."),
            ("Will this be slow on a big table?",
             "An index on `orders(customer_id)` helps the join; for very large tables a covering index on "
             "`(customer_id, amount)` lets the database aggregate without touching the table rows. Check with "
             "`EXPLAIN`."),
        ),
    },
    "programming": {
        "open": ("My Python script reads a CSV with ⟦number:«rows» rows⟧ and takes forever. I'm on "
                 "⟦number:Python «pyver»⟧. Here's the loop:\n\n```python\nimport csv\n\ntotal = {}\nwith "
                 "open(\"sales.csv\") as f:\n    for row in csv.DictReader(f):\n        total[row[\"region\"]] = "
                 "total.get(row[\"region\"], 0) + float(row[\"amount\"])\n```\n\nHow can I speed it up?",),
        "answer": ("For «rows» rows the plain loop is fine in principle; the usual culprits are parsing and "
                   "Python-level overhead. With pandas the whole thing is vectorised:\n\n```python\nimport pandas as "
                   "pd\n\ndf = pd.read_csv(\"sales.csv\", usecols=[\"region\", \"amount\"], dtype={\"region\": "
                   "\"category\"})\ntotals = df.groupby(\"region\", "
                   "observed=True)[\"amount\"].sum().sort_values(ascending=False)\nprint(totals)\n```\n\n`usecols` and "
                   "the `category` dtype cut memory a lot. If you prefer SQL, DuckDB can query the CSV "
                   "directly:\n\n```sql\nSELECT region, SUM(amount) AS total\nFROM 'sales.csv'\nGROUP BY region\nORDER "
                   "BY total DESC;\n```"),
        "pairs": (
            ("What if the file doesn't fit in memory?",
             "Read it in chunks and combine partial sums:\n\n```python\ntotals = None\nfor chunk in "
             "pd.read_csv(\"sales.csv\", usecols=[\"region\", \"amount\"], chunksize=500_000):\n    part = "
             "chunk.groupby(\"region\")[\"amount\"].sum()\n    totals = part if totals is None else totals.add(part, "
             "fill_value=0)\n```"),
            ("Could I do it with the standard library only?",
             "Yes. Most of the time goes into `DictReader` building a dict per row; `csv.reader` with column indexes "
             "is about twice as fast:\n\n```python\nwith open(\"sales.csv\", newline=\"\") as f:\n    reader = "
             "csv.reader(f)\n    header = next(reader)\n    r, a = header.index(\"region\"), "
             "header.index(\"amount\")\n    for row in reader:\n        total[row[r]] = total.get(row[r], 0.0) + "
             "float(row[a])\n```"),
            ("How do I time it properly?",
             "Use `time.perf_counter()` around the code, or `%timeit` in Jupyter. Run it a few times: the first run "
             "includes reading the file from disk, later runs often hit the OS cache."),
            ("Can you write a unit test for the totals?",
             "```python\ndef test_totals_by_region(tmp_path):\n    p = tmp_path / \"sales.csv\"\n    "
             "p.write_text(\"region,amount\\nnorth,10\\nsouth,5\\nnorth,2.5\\n\")\n    totals = totals_by_region(p)\n  "
             "  assert totals.to_dict() == {\"north\": 12.5, \"south\": 5.0}\n```"),
        ),
    },
    "fitness": {
        "open": ("I'm ⟦name:«name»⟧, ⟦number:«age» years old⟧, and I want to run my first 5K in ⟦number:«weeks» "
                 "weeks⟧. I can run about 10 minutes right now. Is that realistic?",),
        "answer": ("Yes, that's realistic for most healthy adults, and «weeks» weeks gives you some "
                   "slack.\n\n**Structure (3 runs a week):**\n- Weeks 1-3: run/walk intervals, e.g. 3 min run + 1 min "
                   "walk, repeated 6 times.\n- Weeks 4-6: lengthen the runs to 8-10 minutes, fewer walks.\n- Final "
                   "weeks: one continuous 25-35 minute run per week.\n\nKeep easy runs genuinely easy (you should be "
                   "able to talk), and don't increase weekly time by more than about 10%."),
        "pairs": (
            ("What should I eat before a run?",
             "Something small and carb-based 1-2 hours before: a banana, toast with honey, or oatmeal. Avoid trying "
             "new foods on race day."),
            ("My knees hurt a bit after runs. Should I stop?",
             "Mild soreness that fades within a day is common; sharp pain, swelling or pain that gets worse while "
             "running is not. Take a few days off, check your shoes, and see a physiotherapist or doctor if it "
             "persists."),
            ("How do I stay motivated?",
             "Put the runs in your calendar like appointments, track them somewhere visible, and sign up for the "
             "actual race now: a date and a small fee are surprisingly good motivators."),
        ),
    },
}

GENERIC_EN = (
    ("Thanks, that's really helpful!", "You're welcome! Let me know if you'd like me to adjust anything."),
    ("Great, one more question.", "Of course, go ahead."),
    ("Perfect, thank you so much.", "Happy to help. Good luck!"),
)
