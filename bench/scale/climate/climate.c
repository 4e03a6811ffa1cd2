/* climate: the next action of a greenhouse's climate controller, decided
 * from one set of readings.
 *   climate TEMP HUMIDITY CO2 LIGHT HOUR SEASON CROP VENT HEATER MIST SENSORS MODE
 * TEMP in tenths of a degree Celsius, HUMIDITY in percent, CO2 in ppm, LIGHT
 * in hundreds of lux, HOUR 0..23, SEASON 0..3 (winter, spring, summer,
 * autumn), CROP 0..3, VENT, HEATER and MIST 0 or 1 (what the actuators do
 * now), SENSORS a mask of the sensors reading valid values (1 temperature,
 * 2 humidity, 4 CO2, 8 light), MODE 0 automatic, 1 economy, 2 frost guard.
 * Prints one action and its level: HOLD 0, HEAT 1..3, COOL 2, VENT 1..3,
 * MIST 1..2, DRY 1..2 or ALARM 1..2. Exit status 0, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>

enum action { HOLD, HEAT, COOL, VENT, MIST, DRY, ALARM };
static const char *const NAMES[] = {"HOLD", "HEAT", "COOL", "VENT", "MIST", "DRY", "ALARM"};

/* Per crop: day and night targets (tenths of a degree), the dead band
 * around them and the humidity the crop tolerates. */
static const int DAY_TARGET[4] = {220, 250, 180, 270};
static const int NIGHT_TARGET[4] = {170, 200, 140, 210};
static const int BAND[4] = {15, 20, 10, 25};
static const int HUMID_MAX[4] = {85, 90, 80, 75};
/* Per season: the hours the day starts and ends, and a shift of the targets. */
static const int DAWN[4] = {8, 6, 5, 7};
static const int DUSK[4] = {16, 19, 21, 18};
static const int SEASON_SHIFT[4] = {-10, 0, 10, 0};

struct reading {
    int temp, humid, co2, light, hour, season, crop;
    int vent, heater, mist, sensors, mode;
};

static int has_light_sensor(const struct reading *r)
{
    return (r->sensors & 8) != 0;
}

static int is_day(const struct reading *r)
{
    if (r->hour >= DAWN[r->season] && r->hour < DUSK[r->season])
        return 1;
    /* Bright outside the day's hours (a long summer evening). */
    return has_light_sensor(r) && r->light > 150;
}

static int target(const struct reading *r)
{
    int t = is_day(r) ? DAY_TARGET[r->crop] : NIGHT_TARGET[r->crop];
    t += SEASON_SHIFT[r->season];
    if (r->mode == 1)
        t -= is_day(r) ? 30 : 10;
    if (r->mode == 2)
        t = 50;
    return t;
}

static int band(const struct reading *r)
{
    int b = BAND[r->crop];
    if (r->mode == 1)
        b += 10;
    return b;
}

/* A heater already on keeps heating up to the target (hysteresis). */
static int heat_level(const struct reading *r, int t, int b)
{
    int below = t - r->temp;
    int start = r->heater ? 0 : b;
    if (below <= start)
        return 0;
    if (below > 4 * b)
        return 3;
    if (below > 2 * b)
        return 2;
    return 1;
}

static int cool_level(const struct reading *r, int t, int b)
{
    int above = r->temp - t;
    int start = r->vent ? b / 2 : b;
    if (above <= start)
        return 0;
    if (above > 3 * b)
        return 2;
    return 1;
}

static int co2_high(const struct reading *r)
{
    if (!(r->sensors & 4))
        return 0;
    int limit = is_day(r) ? 1200 : 1500;
    if (has_light_sensor(r) && r->light > 400)
        limit += 200; /* bright light: the plants use it up */
    return r->co2 > limit;
}

/* 2 far too wet, 1 too wet, -1 too dry for the warmth, 0 fine or unknown. */
static int humid_level(const struct reading *r)
{
    if (!(r->sensors & 2))
        return 0;
    int max = HUMID_MAX[r->crop];
    if (r->humid > max + 5)
        return 2;
    if (r->humid > max)
        return 1;
    if (r->humid < 40 && r->temp > 200)
        return -1;
    return 0;
}

static int alarm_level(const struct reading *r)
{
    if (!(r->sensors & 1))
        return 2; /* no temperature: nothing can be controlled */
    if (r->temp < 20 || r->temp > 420)
        return 2;
    if (r->temp < 50 && !r->heater && r->mode != 2)
        return 1;
    if ((r->sensors & 6) == 0 && r->mode == 0)
        return 1;
    return 0;
}

static enum action decide(const struct reading *r, int *level)
{
    int a = alarm_level(r);
    if (a > 0) {
        *level = a;
        return ALARM;
    }
    int t = target(r);
    int b = band(r);
    int humid = humid_level(r);
    int heat = heat_level(r, t, b);
    if (heat > 0) {
        /* A little heat in wet air: drying heats as well. */
        if (humid == 2 && heat == 1) {
            *level = 1;
            return DRY;
        }
        *level = heat;
        return HEAT;
    }
    int cool = cool_level(r, t, b);
    if (cool > 0) {
        if (humid < 0 && !r->mist && r->mode == 0) {
            *level = cool;
            return MIST;
        }
        if (cool == 2 && r->season == 2 && r->mode == 0) {
            *level = 2;
            return COOL;
        }
        int v = cool + co2_high(r);
        if (r->season == 0 && v > 1)
            v = 1; /* winter: never open wide */
        *level = v;
        return VENT;
    }
    if (humid > 0) {
        *level = humid;
        return r->temp > t ? VENT : DRY;
    }
    if (co2_high(r)) {
        *level = 1;
        return VENT;
    }
    if (humid < 0 && is_day(r)) {
        *level = 1;
        return MIST;
    }
    *level = 0;
    return HOLD;
}

static const int LOW[12] = {-400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
static const int HIGH[12] = {600, 100, 5000, 2000, 23, 3, 3, 1, 1, 1, 15, 2};

int main(int argc, char **argv)
{
    int v[12];
    if (argc != 13) {
        fprintf(stderr, "usage: climate TEMP HUMIDITY CO2 LIGHT HOUR SEASON CROP VENT HEATER MIST SENSORS MODE\n");
        return 2;
    }
    for (int i = 0; i < 12; i++) {
        char *end;
        long x = strtol(argv[i + 1], &end, 10);
        if (end == argv[i + 1] || *end != '\0' || x < LOW[i] || x > HIGH[i]) {
            fprintf(stderr, "climate: argument %d out of range: %s\n", i + 1, argv[i + 1]);
            return 2;
        }
        v[i] = (int)x;
    }
    struct reading r = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]};
    int level = 0;
    enum action a = decide(&r, &level);
    printf("%s %d\n", NAMES[a], level);
    return 0;
}
