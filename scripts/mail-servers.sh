#!/usr/bin/env bash
# Real mail servers for development and the end-to-end mail tests: Debian's Postfix (SMTP) and
# Dovecot (IMAP, LMTP, SASL), local only, for the test domain example.test. Installs them when
# missing, (re)writes their configuration, starts them without systemd and waits until the ports
# answer. Idempotent: a second run changes nothing and takes a second or two. Needs root (sudo is
# used when run as another user); .ci/run calls it before the tests.
#
# What runs where (all bound to 127.0.0.1; docs/operating.md, "Mail servers for development and tests"):
#   25   SMTP, no authentication: mail for example.test only (what the internet's MTAs would use)
#   587  SMTP submission, authentication required (PLAIN/LOGIN through Dovecot), STARTTLS offered
#   465  SMTP submission over TLS (implicit TLS), authentication required
#   143  IMAP, STARTTLS offered, plain login allowed      993  IMAP over TLS
# Mailboxes are the lines of $STATE/users (Dovecot passwd-file, re-read when it changes): Postfix
# hands every example.test recipient to Dovecot over LMTP, Dovecot refuses the unknown ones and
# Postfix bounces them (a DSN to the sender). So adding a mailbox is appending a line; nothing is
# reloaded. Nothing leaves the machine: any other domain bounces too.
# Recipients that submission treats apart are rows of $STATE/access/recipients.sqlite, writable by
# the same user: table deferred (address, reply) answers the recipient with its reply at RCPT (a 4xx,
# "try later"); table answer_late (address, stage, seconds) has the server wait that long before it
# answers the recipient's RCPT (stage 'rcpt') or the end of a message's data ('end-of-data'). Postfix
# queries the file at every lookup: a row counts from the next message.
#
# The machine's Postfix and Dovecot configuration are this script's: run it on a development or CI
# machine, never on one whose mail servers serve anything else.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then exec sudo --preserve-env=MAIL_TEST_OWNER bash "$0" "$@"; fi

DOMAIN=example.test
STATE=/var/lib/outreach-mail-test # the users file, the mail, the TLS certificate and the logs
# Who may add mailboxes (append to the users file): the developer who ran the script through sudo.
OWNER=${MAIL_TEST_OWNER:-${SUDO_USER:-root}}
started=$(date +%s%N)

# --- install ---------------------------------------------------------------------------------
missing=()
for pkg in postfix postfix-sqlite sqlite3 dovecot-imapd dovecot-lmtpd; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  # "Local only": the package's own questions answered; the settings below replace its choices.
  echo "postfix postfix/main_mailer_type select Local only" | debconf-set-selections
  echo "postfix postfix/mailname string mail.$DOMAIN" | debconf-set-selections
  apt-get install -y --no-install-recommends "${missing[@]}" \
    || { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; }
fi

# --- state: the mailbox owner, the users file, the certificate --------------------------------
id vmail >/dev/null 2>&1 || useradd --system --user-group --home-dir "$STATE/mail" --no-create-home --shell /usr/sbin/nologin vmail
mkdir -p "$STATE/mail" "$STATE/tls" "$STATE/log"
chown vmail:vmail "$STATE/mail"
chmod 0755 "$STATE"
[ -f "$STATE/users" ] || install -m 0644 /dev/null "$STATE/users"
chown "$OWNER" "$STATE/users"
# The recipients' tables exist before Postfix is told of them: a lookup in a missing table would
# defer every recipient of submission.
mkdir -p "$STATE/access"
sqlite3 "$STATE/access/recipients.sqlite" "CREATE TABLE IF NOT EXISTS deferred (address TEXT PRIMARY KEY, reply TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS answer_late (address TEXT NOT NULL, stage TEXT NOT NULL CHECK (stage IN ('rcpt', 'end-of-data')),
    seconds INTEGER NOT NULL, PRIMARY KEY (address, stage))"
chown "$OWNER" "$STATE/access" "$STATE/access/recipients.sqlite"
chmod 0755 "$STATE/access"
chmod 0644 "$STATE/access/recipients.sqlite"
if [ ! -s "$STATE/tls/cert.pem" ]; then
  # Self-signed, for localhost and 127.0.0.1: tests trust this file as their CA.
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:mail.$DOMAIN" \
    -keyout "$STATE/tls/key.pem" -out "$STATE/tls/cert.pem" 2>/dev/null
  chmod 0600 "$STATE/tls/key.pem"
  chmod 0644 "$STATE/tls/cert.pem"
fi

# --- Dovecot: IMAP, LMTP for Postfix, SASL for Postfix ----------------------------------------
dovecot_conf=$(mktemp)
cat >"$dovecot_conf" <<EOF
# Written by scripts/mail-servers.sh (outreach-mcp): local test mail server. Edits are overwritten.
protocols = imap lmtp
listen = 127.0.0.1
log_path = $STATE/log/dovecot.log
ssl = yes
ssl_cert = <$STATE/tls/cert.pem
ssl_key = <$STATE/tls/key.pem
$( [ -f /usr/share/dovecot/dh.pem ] && echo "ssl_dh = </usr/share/dovecot/dh.pem" )
# Test clients log in over plain IMAP on 127.0.0.1 too (the app's profiles may use either).
disable_plaintext_auth = no
auth_mechanisms = plain login
# A refused login answers at once: no 2 s delay, and no growing penalty (up to 15 s) for the address
# that failed before (the tests' 127.0.0.1), which would slow every wrong-password test.
auth_failure_delay = 0
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
mail_location = maildir:~/Maildir
first_valid_uid = $(id -u vmail)
# One line per mailbox: "user@$DOMAIN:{PLAIN}password::::::". Dovecot re-reads the file when it
# changes, checking at most once a second: a mailbox is known from the second after it was added.
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%Lu $STATE/users
}
userdb {
  driver = passwd-file
  args = username_format=%Lu $STATE/users
  default_fields = uid=vmail gid=vmail home=$STATE/mail/%Ld/%Ln
}
service imap-login {
  inet_listener imap {
    port = 143
  }
  inet_listener imaps {
    port = 993
    ssl = yes
  }
}
service lmtp {
  unix_listener /var/spool/postfix/private/dovecot-lmtp {
    user = postfix
    group = postfix
    mode = 0600
  }
}
service auth {
  unix_listener /var/spool/postfix/private/auth {
    user = postfix
    group = postfix
    mode = 0660
  }
}
protocol lmtp {
  postmaster_address = postmaster@$DOMAIN
}
EOF
dovecot_changed=0
if ! cmp -s "$dovecot_conf" /etc/dovecot/dovecot.conf; then
  [ -f /etc/dovecot/dovecot.conf.debian ] || cp /etc/dovecot/dovecot.conf /etc/dovecot/dovecot.conf.debian
  install -m 0644 "$dovecot_conf" /etc/dovecot/dovecot.conf
  dovecot_changed=1
fi
rm -f "$dovecot_conf"
doveconf -n >/dev/null # fails here, with Dovecot's own message, on a bad setting

# --- Postfix: 25 for example.test, 587 and 465 for authenticated submission --------------------
# Submission's deferred and late-answered recipients (sqlite_table(5), from the postfix-sqlite
# package); a late one's lookup answers the restriction "sleep <seconds>".
recipients_map() { # <file> <query>
  local written
  written=$(mktemp)
  printf '# Written by scripts/mail-servers.sh (outreach-mcp). Edits are overwritten.\ndbpath = %s\nquery = %s\n' \
    "$STATE/access/recipients.sqlite" "$2" >"$written"
  cmp -s "$written" "$1" || install -m 0644 "$written" "$1"
  rm -f "$written"
}
recipients_map /etc/postfix/outreach-deferred.cf "SELECT reply FROM deferred WHERE address = '%s'"
for stage in rcpt end-of-data; do
  recipients_map "/etc/postfix/outreach-late-$stage.cf" "SELECT 'sleep ' || seconds FROM answer_late WHERE address = '%s' AND stage = '$stage'"
done
postfix_before=$(postconf -n; postconf -M; postconf -P)
main_cf=(
  "myhostname = mail.$DOMAIN"
  "mydomain = $DOMAIN"
  'myorigin = $myhostname'
  'inet_interfaces = 127.0.0.1'
  'inet_protocols = ipv4'
  'mydestination = localhost'
  'mynetworks = 127.0.0.0/8'
  'relayhost ='
  "virtual_mailbox_domains = $DOMAIN"
  'virtual_transport = lmtp:unix:private/dovecot-lmtp'
  'virtual_mailbox_maps ='
  'default_transport = error:this test mail server delivers to example.test only'
  'relay_transport = error:this test mail server delivers to example.test only'
  'smtpd_relay_restrictions = permit_mynetworks, permit_sasl_authenticated, reject_unauth_destination'
  'smtpd_sasl_type = dovecot'
  'smtpd_sasl_path = private/auth'
  "smtpd_tls_cert_file = $STATE/tls/cert.pem"
  "smtpd_tls_key_file = $STATE/tls/key.pem"
  'smtpd_tls_security_level = may'
  'smtp_tls_security_level = none'
  "maillog_file = $STATE/log/postfix.log"
  'append_dot_mydomain = no'
  'biff = no'
)
# Only what differs is written: a `postconf -e` makes the next postconf wait about two seconds.
current_main=$(postconf -n)
for setting in "${main_cf[@]}"; do
  grep -qxF -- "$setting" <<<"$current_main" || { postconf -e "${main_cf[@]}"; break; }
done
# Empty virtual_mailbox_maps: Postfix accepts every example.test recipient and Dovecot (LMTP) says
# which exist, so a new mailbox needs no Postfix map or reload, and an unknown one gets a real DSN.
# No chroot: Debian's init script would copy resolv.conf and friends into it; `postfix start` does not.
postconf -F '*/*/chroot = n'
for service in submission/inet smtps/inet; do
  postconf -M "$service=${service%/inet} inet n - n - - smtpd"
  postconf -P "$service/syslog_name=postfix/${service%/inet}" \
    "$service/smtpd_sasl_auth_enable=yes" \
    "$service/smtpd_tls_auth_only=no" \
    "$service/smtpd_client_restrictions=permit_sasl_authenticated,reject" \
    "$service/smtpd_relay_restrictions=permit_sasl_authenticated,reject" \
    "$service/smtpd_recipient_restrictions=check_recipient_access,sqlite:/etc/postfix/outreach-deferred.cf,check_recipient_access,sqlite:/etc/postfix/outreach-late-rcpt.cf,permit_sasl_authenticated,reject" \
    "$service/smtpd_end_of_data_restrictions=check_recipient_access,sqlite:/etc/postfix/outreach-late-end-of-data.cf"
done
postconf -P 'smtps/inet/smtpd_tls_wrappermode=yes'
postconf -M 'postlog/unix-dgram=postlog unix-dgram n - n - 1 postlogd'
postfix_changed=0
[ "$postfix_before" = "$(postconf -n; postconf -M; postconf -P)" ] || postfix_changed=1
postfix check

# --- start (or reload what changed) ------------------------------------------------------------
dovecot_running() { [ -f /run/dovecot/master.pid ] && kill -0 "$(cat /run/dovecot/master.pid)" 2>/dev/null; }
if ! dovecot_running; then
  dovecot
elif [ $dovecot_changed = 1 ]; then
  doveadm reload
fi
if ! postfix status >/dev/null 2>&1; then
  postfix start
elif [ $postfix_changed = 1 ]; then
  postfix reload
fi

port_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in 25 587 465 143 993; do
  for _ in $(seq 50); do port_answers "$port" && break; sleep 0.2; done
  port_answers "$port" || { echo "nothing answers on 127.0.0.1:$port: see $STATE/log/postfix.log and $STATE/log/dovecot.log" >&2; exit 1; }
done

cat <<EOF
mail servers for $DOMAIN on 127.0.0.1 (ready in $(( ($(date +%s%N) - started) / 1000000 )) ms):
  Postfix $(postconf -h mail_version): SMTP 25 (no auth, for $DOMAIN), submission 587 (auth, STARTTLS), 465 (auth, TLS)
  Dovecot $(dovecot --version | cut -d' ' -f1): IMAP 143 (STARTTLS), 993 (TLS); delivery from Postfix over LMTP
  mailboxes: $STATE/users (writable by $OWNER; one "user@$DOMAIN:{PLAIN}password::::::" a line)
  recipients treated apart: $STATE/access/recipients.sqlite (writable by $OWNER; tables deferred: address, reply; answer_late: address, stage, seconds)
  certificate: $STATE/tls/cert.pem   logs: $STATE/log/
EOF
