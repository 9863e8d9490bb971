"""Settings, all read from environment variables.

Without DEBUG the defaults are the production-safe ones (HTTPS-only cookies, HSTS, a required
SECRET_KEY). Without DATABASE_URL / REDIS_URL the embedded servers from ``durak_site.ops.embedded``
are used.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from email.utils import parseaddr
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from durak_site.ops import backups, embedded, error_reports, monitoring
from durak_site.push import vapid

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG")


def _secret_key() -> str:
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    # Development: a random key kept under var/ so sessions survive restarts.
    path = embedded.VAR_DIR / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",
    "durak_site.staff.admin_site.StaffAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "axes",
    "import_export",
    "durak_site",
    "durak_site.accounts",
    "durak_site.audit",
    "durak_site.push",
    "wallet",
    "games",
    "tournaments",
]

MIDDLEWARE = [
    "durak_site.ops.json_logs.AccessLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "durak_site.web.security.ContentSecurityPolicyMiddleware",
    "durak_site.web.security.RejectNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "durak_site.web.client_source.BrowserIdMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "durak_site.accounts.staff_access.StaffAccessMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "durak_site.urls"
WSGI_APPLICATION = "durak_site.wsgi.application"
ASGI_APPLICATION = "durak_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "wallet.context_processors.header_balance",
                "wallet.context_processors.play_reminder",
                "durak_site.push.context_processors.push",
            ],
        },
    },
]

# --- Data stores ---------------------------------------------------------------------------

DATABASE_URL = os.environ.get("DATABASE_URL") or embedded.DEFAULT_DATABASE_URL
REDIS_URL = os.environ.get("REDIS_URL") or embedded.DEFAULT_REDIS_URL

DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        # A connection borrowed from the pool is checked with an empty query first, which costs
        # little: after PostgreSQL restarts, no call fails on a connection that died with it.
        conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", True),
    ),
}
# An unreachable server is reported within seconds, not after the operating system gives up.
DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 10)
if env_bool("DB_PGBOUNCER"):
    # Transaction pooling hands each transaction any server connection: nothing may outlive one.
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = None
# Every statement sends its parameters apart from its text (Django's documented option), and
# psycopg prepares one once it has run this often on a connection: the few statements of every
# move are planned once per connection, not on each move.
DATABASES["default"]["OPTIONS"]["server_side_binding"] = True
DATABASES["default"]["OPTIONS"].setdefault("prepare_threshold", 5)
# Threads per web process that run database work for the sockets.
DB_THREADS = int(os.environ.get("DB_THREADS", "4"))
# Each process keeps its connections open in a pool, and every piece of database work borrows
# one. Under ASGI Django serves each page request on a thread of its own, so a connection kept
# per thread was opened anew for every request, at a cost in CPU, most of it PostgreSQL's.
# docs/deployment.md sizes the pools against max_connections.
DATABASES["default"]["OPTIONS"]["pool"] = {
    "min_size": int(os.environ.get("DB_POOL_MIN_SIZE", "2")),
    "max_size": int(os.environ.get("DB_POOL_MAX_SIZE", str(DB_THREADS + 4))),
    # Work that finds every connection busy waits this long for one, then fails.
    "timeout": 10,
}
DATABASES["default"]["TEST"] = {"NAME": os.environ.get("TEST_DATABASE_NAME", "test_durak")}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "durak"),
    }
}

# channels-redis's layer as it ships: most states never reach it (games.broadcast).
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            # The layer blocks up to 5 s waiting for messages; redis-py's own 5 s read timeout
            # would cut every quiet socket, so reads on these connections never time out.
            # Several comma-separated CHANNEL_LAYER_REDIS_URLS shard the layer over servers.
            "hosts": [
                {"address": url, "socket_timeout": None}
                for url in env_list("CHANNEL_LAYER_REDIS_URLS", REDIS_URL)
            ],
            "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "durak"),
            # Messages waiting per channel before new ones are dropped. The sockets of one
            # process share one list in Redis, so it must hold a burst for all of them: at the
            # default of 100, a busy process dropped states and its tables stalled.
            "capacity": int(os.environ.get("CHANNEL_LAYER_CAPACITY", "10000")),
        },
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
# Celery would otherwise close the worker's database connection around every task.
CELERY_DB_REUSE_MAX = 10_000
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A task a dead worker held comes back after this long. It must exceed the longest countdown
# (a bot's move, seconds), or a held task would be delivered a second time while still waiting.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 360}
# The transport that keeps the worker alive when Redis restarts under held tasks.
CELERY_BROKER_TRANSPORT = "durak_site.celery:RedisTransport"
CELERY_TIMEZONE = "UTC"
# Processes sharing one Redis (parallel test runs) keep their tasks apart, like their channels.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get(
    "CELERY_QUEUE", os.environ.get("CHANNEL_LAYER_PREFIX", "durak")
)
# Game deadlines and the games sweep need no beat: the workers keep their loop running
# (games.deadlines).
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    "accounts-purge-identity-documents": {
        "task": "durak_site.tasks.purge_identity_documents",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    "wallet-expire-payments": {
        "task": "wallet.tasks.expire_payments",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
    "wallet-reconcile-payments": {
        "task": "wallet.tasks.reconcile_payments",
        "schedule": 300.0,
        "options": {"expires": 300.0},
    },
    # Tournaments start, pair and end on this clock; a game's end also runs it at once.
    "tournaments-tick": {
        "task": "tournaments.tasks.tick",
        "schedule": 5.0,
        "options": {"expires": 5.0},
    },
    "games-find-puzzles": {
        "task": "games.tasks.find_puzzles",
        "schedule": 300.0,
        "options": {"expires": 300.0},
    },
    # The books audited every night; the result is a metric (wallet.metrics) that alerts.
    "wallet-ledger-check": {
        "task": "wallet.tasks.ledger_check",
        "schedule": crontab(hour=4, minute=30),
        "options": {"expires": 6 * 3600},
    },
}
# The nightly pg_dump into BACKUP_DIR ("HH:MM" UTC, or "off"; ./dev test turns it off).
try:
    CELERY_BEAT_SCHEDULE |= backups.nightly_schedule(os.environ.get("NIGHTLY_BACKUP_AT", "03:00"))
except ValueError as error:
    raise ImproperlyConfigured(str(error)) from error

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Accounts ------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    # First, so that a locked-out attempt is refused before any password is hashed.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = os.environ.get(
    "ACCOUNT_EMAIL_VERIFICATION", "optional" if DEBUG else "mandatory"
)
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_RATE_LIMITS = {
    "login": "30/m/ip",
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/m/ip",
    "confirm_email": "1/3m/key",
    "reset_password": "20/m/ip,5/m/key",
}
# Behind a reverse proxy that sets X-Forwarded-For to the client's address (docs/deployment.md):
# the number of proxies, so that rate limits count each client, not the proxy.
ALLAUTH_TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
ACCOUNT_FORMS = {"signup": "durak_site.accounts.forms.SignupForm"}

# Identity checks (durak_site.accounts.identity). What needs a verified identity: any of
# "first_withdrawal" (staff pay a player's first withdrawal only once his documents are
# verified) and "play" (a seat at a table with stakes), comma-separated; and a deposit above
# IDENTITY_REQUIRED_DEPOSIT_ABOVE minor units (empty: none).
IDENTITY_REQUIREMENTS = ("first_withdrawal", "play")
IDENTITY_REQUIRED_FOR = frozenset(env_list("IDENTITY_REQUIRED_FOR"))
if IDENTITY_REQUIRED_FOR - set(IDENTITY_REQUIREMENTS):
    raise ImproperlyConfigured(
        f"IDENTITY_REQUIRED_FOR may name only {', '.join(IDENTITY_REQUIREMENTS)}; "
        f"got {', '.join(sorted(IDENTITY_REQUIRED_FOR))}."
    )
IDENTITY_REQUIRED_DEPOSIT_ABOVE = (
    int(os.environ["IDENTITY_REQUIRED_DEPOSIT_ABOVE"])
    if os.environ.get("IDENTITY_REQUIRED_DEPOSIT_ABOVE", "").strip()
    else None
)
# The uploaded documents: a private folder, never under a served URL.
IDENTITY_DOCUMENTS_DIR = Path(
    os.environ.get("IDENTITY_DOCUMENTS_DIR") or embedded.VAR_DIR / "identity_documents"
)
# Days a closed account's documents are kept (the law's retention period), then deleted.
IDENTITY_DOCUMENTS_RETENTION_DAYS = int(os.environ.get("IDENTITY_DOCUMENTS_RETENTION_DAYS", "1825"))
ACCOUNT_ADAPTER = "durak_site.accounts.adapter.AccountAdapter"

# Staff sign in through the same allauth login as players (/admin/login/ leads there), then
# give their second factor. The login locks an e-mail address for one client address after a
# few wrong passwords; the same address stays open from every other client, so nobody can lock
# a chosen member of staff out. allauth's limits (ACCOUNT_RATE_LIMITS) apply as well.
AXES_ONLY_ADMIN_SITE = False
AXES_USERNAME_CALLABLE = "durak_site.accounts.staff_access.login_name"
AXES_LOCKOUT_PARAMETERS = [["ip_address", "username"]]
AXES_FAILURE_LIMIT = int(os.environ.get("ADMIN_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("ADMIN_LOGIN_COOLOFF_MINUTES", "15")))
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"
# Attempts live in the cache (Redis), so the add-on's database tables and pages stay unused.
AXES_ENABLE_ADMIN = False
AXES_VERBOSE = False  # no start-up banner in every command's output

# The second factor (allauth.mfa): an authenticator app (TOTP) with one-time recovery codes,
# or a passkey / security key (WebAuthn), which may also sign in without the password. Every
# staff member must set one up before the admin opens (durak_site.accounts.staff_access).
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_TOTP_ISSUER = os.environ.get("MFA_TOTP_ISSUER", "Durak")
# Browsers offer WebAuthn on https pages and on http://localhost, which development uses.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = DEBUG
# A staff session ends after this long without a request.
STAFF_SESSION_IDLE_SECONDS = int(os.environ.get("STAFF_SESSION_IDLE_MINUTES", "30")) * 60

# A staff member exports only what he may view: import-export lets every staff user export
# unless told which permission an export needs.
IMPORT_EXPORT_EXPORT_PERMISSION_CODE = "view"

# --- E-mail --------------------------------------------------------------------------------

EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Durak <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Push notifications ---------------------------------------------------------------------


def _vapid_keys() -> tuple[str, str]:
    private = os.environ.get("VAPID_PRIVATE_KEY", "")
    public = os.environ.get("VAPID_PUBLIC_KEY", "")
    if bool(private) != bool(public):
        raise ImproperlyConfigured("Set both VAPID_PRIVATE_KEY and VAPID_PUBLIC_KEY, or neither.")
    if private or not DEBUG:
        return private, public  # without a key pair in production, push is off
    # Development: a pair kept under var/, like the secret key.
    return vapid.development_keys(embedded.VAR_DIR / "vapid.json")


# Web Push (durak_site.push): the VAPID key pair and the contact push services may write to.
VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY = _vapid_keys()
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT") or f"mailto:{parseaddr(DEFAULT_FROM_EMAIL)[1]}"
# The browsers' push services subscriptions may point at (a leading dot: any host under it);
# the server posts to a subscription's address, so no other is accepted.
PUSH_SERVICE_HOSTS = env_list(
    "PUSH_SERVICE_HOSTS",
    "fcm.googleapis.com,updates.push.services.mozilla.com,web.push.apple.com,.notify.windows.com",
)

# --- Languages -----------------------------------------------------------------------------

LANGUAGE_CODE = "ru"
LANGUAGES = [("ru", _("Russian")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "durak_site" / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Moscow")
USE_TZ = True

# --- Money ---------------------------------------------------------------------------------

CURRENCY = os.environ.get("CURRENCY", "RUB")
# A play-money site: amounts are chips (same ledger, rules and banks), there is no cashier and
# no payment provider, and a player may top his wallet up for free once a day, up to
# PLAY_MONEY_DAILY_FLOOR (minor units: 100 make a chip).
PLAY_MONEY = env_bool("PLAY_MONEY")
PLAY_MONEY_DAILY_FLOOR = int(os.environ.get("PLAY_MONEY_DAILY_FLOOR", "100000"))
# House commission (rake) in percent for new tables, rounded down to a whole unit per game.
GAMES_COMMISSION_PERCENT = os.environ.get("GAMES_COMMISSION_PERCENT", "0")
# Seconds an open table waits for players after its newest seat was taken; then the sweeper
# closes it and returns the held stakes.
TABLE_OPEN_TTL = int(os.environ.get("TABLE_OPEN_TTL", str(30 * 60)))
# When every player still in a game loses the connection within TABLE_DROP_WINDOW_SECONDS of
# the others, the fault is more likely ours than theirs: their deadline waits until this many
# seconds after the last of them left before the server plays for them or ends the game.
TABLE_DROP_WINDOW_SECONDS = float(os.environ.get("TABLE_DROP_WINDOW_SECONDS", "5"))
TABLE_DROP_GRACE_SECONDS = float(os.environ.get("TABLE_DROP_GRACE_SECONDS", "60"))
# A bot at a practice table moves a random number of seconds in this range after the game
# starts waiting for it, as a person would.
BOT_DELAY_SECONDS = tuple(
    float(bound) for bound in os.environ.get("BOT_DELAY_SECONDS", "0.5,1.5").split(",", 1)
)
# Post-game analysis («Разбор партии»): the search judges each of a player's decisions on at
# most this many determinized deals and for at most this many seconds, keeping the CPU bounded.
GAME_ANALYSIS_DEALS = int(os.environ.get("GAME_ANALYSIS_DEALS", "96"))
GAME_ANALYSIS_SECONDS = float(os.environ.get("GAME_ANALYSIS_SECONDS", "1.0"))
# What ledger_check audits beyond the ledger itself: each app's checks of the money it posts
# (the wallet knows no game, so it finds them here).
LEDGER_AUDITS = [
    "games.selectors.ledger_audit.ledger_report",
    "tournaments.selectors.ledger_report",
]
# Called with a finished tournament game inside its transaction (games.services.play).
TOURNAMENT_GAME_FINISHED = "tournaments.services.game_finished"

# --- Metrics (durak_site.ops.metrics, docs/monitoring.md) -----------------------------------------
# Prometheus scrapes every process's metrics from a port of its own, on loopback unless told.
METRICS_HOST = os.environ.get("METRICS_HOST", monitoring.DEFAULT_METRICS_HOST)
METRICS_PORT = int(os.environ.get("METRICS_PORT", monitoring.DEFAULT_METRICS_PORT))
# What each app counts at a scrape, from the database.
METRICS_COLLECTORS = ["games.metrics.TablesCollector", "wallet.metrics.PaymentsCollector"]

# --- Cashier (amounts in minor units) ------------------------------------------------------

DEPOSIT_MIN = int(os.environ.get("DEPOSIT_MIN", "10000"))
DEPOSIT_MAX = int(os.environ.get("DEPOSIT_MAX", "50000000"))
# A payment not confirmed by its provider within this many minutes expires; a later
# notification for it is ignored.
PAYMENT_EXPIRY_MINUTES = int(os.environ.get("PAYMENT_EXPIRY_MINUTES", "60"))
WITHDRAWAL_MIN = int(os.environ.get("WITHDRAWAL_MIN", "10000"))
# A withdrawal above this needs two different staff members to approve it.
WITHDRAWAL_FOUR_EYES_ABOVE = int(os.environ.get("WITHDRAWAL_FOUR_EYES_ABOVE", "5000000"))
# The generic signed-webhook provider (docs/payments.md) is offered once both are set.
PAYMENTS_WEBHOOK_CHECKOUT_URL = os.environ.get("PAYMENTS_WEBHOOK_CHECKOUT_URL", "")
PAYMENTS_WEBHOOK_SECRET = os.environ.get("PAYMENTS_WEBHOOK_SECRET", "")
# YooKassa (docs/payments.md) is offered once the shop id and secret key are set. Its
# notifications are accepted only from YooKassa's documented addresses unless turned off
# (behind a proxy, TRUSTED_PROXY_COUNT must be right for the sender's address to be known).
YOOKASSA_SHOP_ID = os.environ.get("YOOKASSA_SHOP_ID", "")
YOOKASSA_SECRET_KEY = os.environ.get("YOOKASSA_SECRET_KEY", "")
YOOKASSA_API_URL = os.environ.get("YOOKASSA_API_URL", "https://api.yookassa.ru/v3")
YOOKASSA_TRUSTED_SENDERS_ONLY = env_bool("YOOKASSA_TRUSTED_SENDERS_ONLY", True)
# Expired payments are still asked about for this many days: a late payment is credited.
PAYMENT_RECONCILE_DAYS = int(os.environ.get("PAYMENT_RECONCILE_DAYS", "7"))
# The test provider: a page of this site that "pays" without real money. Never in production.
PAYMENTS_TEST_MODE = env_bool("PAYMENTS_TEST_MODE", DEBUG)

# --- Static files --------------------------------------------------------------------------

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "durak_site.web.static_storage.HashedModulesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- Security ------------------------------------------------------------------------------

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
DEFAULT_EXCEPTION_REPORTER_FILTER = "durak_site.web.security.SettingsFilter"
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# Messages a second one socket may send (bursts of twice as many); all of a user's sockets
# together may send twice that (docs/protocol.md).
SOCKET_RATE_PER_SECOND = float(os.environ.get("SOCKET_RATE_PER_SECOND", "10"))
# Messages a second all sockets of one client address may send together (bursts of twice as
# many), on every web process: room for a crowd behind one router, not for a flood from it.
SOCKET_ADDRESS_RATE_PER_SECOND = float(os.environ.get("SOCKET_ADDRESS_RATE_PER_SECOND", "40"))
# Sockets one client address may open a second (bursts of 30 times as many); raise it for load
# tests, where every client comes from one address.
SOCKET_ADDRESS_OPENS_PER_SECOND = float(os.environ.get("SOCKET_ADDRESS_OPENS_PER_SECOND", "2"))
# Bytes that may wait to be sent to a WebSocket client that does not read before it is dropped.
SOCKET_BACKLOG_BYTES = int(os.environ.get("SOCKET_BACKLOG_BYTES", str(1 << 20)))
# The kernel's send buffer of each WebSocket connection; 0 leaves it to the kernel's tuning.
SOCKET_SEND_BUFFER_BYTES = int(os.environ.get("SOCKET_SEND_BUFFER_BYTES", "0"))
# The kernel's receive buffer of each WebSocket connection; 0 leaves it to the kernel's tuning.
SOCKET_RECEIVE_BUFFER_BYTES = int(os.environ.get("SOCKET_RECEIVE_BUFFER_BYTES", "0"))
# Sockets one web process opens at a time (durak_site.sockets.handshake_pacing): about as many
# as its database threads serve without making each other wait.
SOCKET_OPENS_AT_ONCE = int(os.environ.get("SOCKET_OPENS_AT_ONCE", str(2 * DB_THREADS)))

# --- Logging -------------------------------------------------------------------------------

# JSON lines from every role (durak_site.ops.json_logs); the web servers' plain access lines are off
# (the launcher runs Daphne quietly) and AccessLogMiddleware writes one JSON line per request.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "durak_site.ops.json_logs.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's own console handler (plain text, under DEBUG) gives way to the JSON one.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        "daphne": {"level": "WARNING"},
    },
}

# Error reports (durak_site.ops.error_reports): to Sentry when SENTRY_DSN is set, with nothing
# personal.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
error_reports.init_error_reports(
    SENTRY_DSN,
    environment=os.environ.get("SENTRY_ENVIRONMENT", "development" if DEBUG else "production"),
    release=os.environ.get("SENTRY_RELEASE"),
)
