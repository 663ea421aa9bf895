"""Slot values for chats: names, places with real sights, historical events, and computed numbers.

Numbers that answers compute on (servings, budgets per day, equation solutions,
percentages, circle areas) are derived here so the arithmetic in the data is right.
"""

from __future__ import annotations

import math
import random

from .util import pick, rint

NAMES = ("Priya", "Marcus", "Elena", "Tom", "Aisha", "Jonas", "Sofia", "Daniel", "Mei", "Lucas")
NAMES_JA = ("佐藤", "田中", "鈴木", "高橋", "伊藤")
HANDLES = ("priya_s", "marcus-dev", "elena_k", "tomh", "aisha99", "jonas_b", "mei_lin", "kenta_t", "wang_lei", "minjun")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
WEEKDAYS_ZH = ("周一", "周二", "周三", "周四", "周五")
MONTHS = (("April", "四月", "4月", "4월"), ("May", "五月", "5月", "5월"), ("September", "九月", "9月", "9월"),
          ("October", "十月", "10月", "10월"), ("March", "三月", "3月", "3월"))
CITIES = (("Lisbon", "Belém Tower", "the Alfama district", "LX Factory"),
          ("Kyoto", "Fushimi Inari Taisha", "the Arashiyama bamboo grove", "Kiyomizu-dera"),
          ("Edinburgh", "the Royal Mile", "Edinburgh Castle", "Arthur's Seat"),
          ("Hanoi", "Hoan Kiem Lake", "the Temple of Literature", "the Old Quarter"),
          ("Vancouver", "Granville Island", "Stanley Park", "the Capilano Suspension Bridge"),
          ("Mexico City", "the Zócalo", "Chapultepec Park", "the Frida Kahlo Museum in Coyoacán"))
CITIES_ZH = (("成都", "锦里", "大熊猫繁育研究基地", "宽窄巷子"), ("西安", "回民街", "秦始皇兵马俑", "西安城墙"),
             ("杭州", "河坊街", "西湖", "灵隐寺"), ("厦门", "曾厝垵", "鼓浪屿", "南普陀寺"))
CITIES_JA = (("京都", "先斗町", "伏見稲荷大社", "清水寺"), ("金沢", "ひがし茶屋街", "兼六園", "金沢21世紀美術館"),
             ("札幌", "すすきの", "大通公園", "二条市場"), ("福岡", "中洲の屋台", "太宰府天満宮", "大濠公園"))
CITIES_KO = (("부산", "해운대 야경", "감천문화마을", "자갈치시장"), ("제주", "탑동 해변 산책", "성산일출봉", "우도"),
             ("경주", "동궁과 월지 야경", "불국사", "대릉원"))
DISHES = (("mushroom and lentil shepherd's pie", "lentils", "蘑菇扁豆派", "扁豆", "きのことレンズ豆のシェパーズパイ", "レンズ豆"),
          ("roasted vegetable lasagna", "lasagna sheets", "烤蔬菜千层面", "千层面皮", "焼き野菜のラザニア", "ラザニア用パスタ"),
          ("chickpea and squash tagine with couscous", "couscous", "鹰嘴豆南瓜塔吉锅配古斯米", "古斯米",
           "ひよこ豆とかぼちゃのタジン", "クスクス"))
# (event, when, where, why, why_short, event_zh, where_zh, why_zh)
EVENTS = (
    ("the Apollo 11 Moon landing", "20 July 1969", "the Sea of Tranquility on the Moon, launched from Florida",
     "it was the first time humans walked on another world, and it effectively ended the US-Soviet race to the Moon",
     "it ended the race to the Moon", "阿波罗11号登月", "月球静海（从美国佛罗里达州发射）", "人类第一次踏上另一个天体，也基本结束了美苏登月竞赛"),
    ("the fall of Constantinople", "29 May 1453", "Constantinople, today's Istanbul",
     "the Ottoman conquest ended the Byzantine Empire and the city became the Ottoman capital",
     "it ended the Byzantine Empire", "君士坦丁堡陷落", "君士坦丁堡（今伊斯坦布尔）", "奥斯曼帝国的征服终结了拜占庭帝国，这座城市成为奥斯曼的首都"),
    ("the Meiji Restoration", "1868", "Japan; the imperial capital moved from Kyoto to Tokyo",
     "power returned to the emperor and Japan rapidly industrialised and rebuilt its institutions on Western models",
     "Japan modernised very quickly", "明治维新", "日本（首都从京都迁往东京）", "政权回归天皇，日本迅速推进工业化和制度现代化"),
    ("Gutenberg's printing press", "around 1440-1450", "Mainz, in today's Germany",
     "printing with movable metal type made books far cheaper and helped ideas spread during the Renaissance and the "
     "Reformation", "books became much cheaper", "古腾堡印刷术", "美因茨（今德国）", "金属活字印刷让书籍大幅降价，推动了文艺复兴和宗教改革时期思想的传播"),
)


def _num(value: float) -> str:
    """Format without a trailing ``.0`` (``12.0`` -> ``12``, ``12.5`` -> ``12.5``)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def chat_slots(rng: random.Random) -> dict[str, str]:
    """Draw every slot any chat template may use, with consistent computed values."""
    n, days = rint(rng, 4, 12), rint(rng, 3, 10)
    a, x, b = rint(rng, 3, 9), rint(rng, 1, 20), rint(rng, 1, 30)
    c = a * x + b
    pct, base, r = pick(rng, (5, 10, 12, 15, 20, 25, 30, 40)), rng.randrange(40, 2000, 20), rint(rng, 2, 15)
    budget, budget_cny = rng.randrange(600, 3000, 50), rng.randrange(3000, 20000, 500)
    budget_jpy = rng.randrange(50_000, 300_000, 10_000)
    month, city, dish, event = pick(rng, MONTHS), pick(rng, CITIES), pick(rng, DISHES), pick(rng, EVENTS)
    zcity, jcity, kcity = pick(rng, CITIES_ZH), pick(rng, CITIES_JA), pick(rng, CITIES_KO)
    cb, a2 = c - b, a - 2
    frac = f" = **{cb // a2}**" if cb % a2 == 0 else f" ≈ **{cb / a2:.2f}**"
    name = pick(rng, NAMES)
    values = {
        "name": name, "other": pick(rng, [other for other in NAMES if other != name]),
        "name_ja": pick(rng, NAMES_JA), "weekday": pick(rng, WEEKDAYS), "weekday_zh": pick(rng, WEEKDAYS_ZH),
        "n": n, "mins": rng.randrange(60, 150, 15), "veg_g": n * 250, "grain_g": n * 80, "bottles": math.ceil(n / 2),
        "days": days, "years": rint(rng, 2, 12), "age": rint(rng, 25, 55), "weeks": rint(rng, 6, 12),
        "month": month[0], "month_zh": month[1], "month_ja": month[2], "month_ko": month[3],
        "city": city[0], "sight1": city[1], "sight2": city[2], "sight3": city[3],
        "city_zh": zcity[0], "zsight1": zcity[1], "zsight2": zcity[2], "zsight3": zcity[3],
        "city_ja": jcity[0], "jsight1": jcity[1], "jsight2": jcity[2], "jsight3": jcity[3],
        "city_ko": kcity[0], "ksight1": kcity[1], "ksight2": kcity[2], "ksight3": kcity[3],
        "budget": budget, "per_day": budget // days, "budget_cny": budget_cny, "per_day_cny": budget_cny // days,
        "budget_jpy": f"{budget_jpy:,}", "per_day_jpy": f"{budget_jpy // days:,}",
        "dish": dish[0], "grain": dish[1], "dish_zh": dish[2], "grain_zh": dish[3],
        "dish_ja": dish[4], "grain_ja": dish[5],
        "a": a, "b": b, "c": c, "x": x, "cb": cb, "ax": a * x, "a2": a2, "frac": frac,
        "pct": pct, "base": base, "pct_val": _num(base * pct / 100), "tenth": _num(base / 10),
        "pct_tenths": _num(pct / 10),
        "r": r, "r2": r * r, "area": f"{math.pi * r * r:.2f}",
        "event": event[0], "when": event[1], "where": event[2], "why": event[3], "why_short": event[4],
        "event_zh": event[5], "where_zh": event[6], "why_zh": event[7],
        "rows": pick(rng, ("800,000", "2 million", "15 million")), "rows_zh": pick(rng, ("80 万", "200 万", "1500 万")),
        "rows_ja": pick(rng, ("1万", "10万", "50万")), "pyver": pick(rng, ("3.10", "3.11", "3.12")),
        "k": pick(rng, (5, 10, 20)),
    }
    return {key: str(value) for key, value in values.items()}
